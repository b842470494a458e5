"""What the tests share: factories, the one loop builder, the API's ways of writing values,
shared fixtures and the panel simulators.

* `factories`: factory_boy factories, `make_question` (through the service) and `level`.
* `loops`: the loop builder. `make_world` (a small bank and an L5 template, no loop),
  `build_loop` (a bank, a template and a scheduled loop with its panels seated) and the
  pieces both are made of; `history_loop` and `bulk_bank` for exposure and scale.
* `api`: `iso()`, a datetime as the API writes it.
* `fixtures`: fixtures several test modules use (registered in tests/conftest.py).
* `simulate`, `sparse_panels`: panels with planted truths, pure numpy, for the
  calibration tests and `bench/` (which may import tests.support).

Importing this package imports nothing: the simulators need no Django.
"""
