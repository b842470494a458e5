"""kit.rubric.derive_rubric: a sample answer outline becomes a checklist of whole sentences."""

import pytest

from kit.importers import QuestionRecord, parse
from kit.rubric import CORE, RED_FLAG, STRONG, derive_rubric
from tests.kit.bank import SEED

# Parsing touches no database, so the seed's outlines can be read at collection time.
RECORDS: list[QuestionRecord] = parse(str(SEED), SEED.read_bytes()).records
CONJUNCTIONS = {"and", "or", "but", "nor", "so", "yet", "because", "while"}


def seed_outline(prompt_start: str) -> str:
    (record,) = [r for r in RECORDS if r.prompt.startswith(prompt_start)]
    return record.outline


def texts(outline: str) -> list[str]:
    return [item.text for item in derive_rubric(outline)]


def test_it_reads_all_25_seed_outlines() -> None:
    assert len(RECORDS) == 25


@pytest.mark.parametrize("record", RECORDS, ids=[f"line-{r.line}" for r in RECORDS])
def test_it_turns_each_seed_outline_into_whole_sentences(record: QuestionRecord) -> None:
    items = texts(record.outline)

    assert len(items) >= 2
    for text in items:
        assert text and text == text.strip()
        assert text[-1] in ".?!", text
        assert len(text.split()) >= 3, text
        assert text.count("(") == text.count(")"), text
        assert text.split()[0].strip(",:;").lower() not in CONJUNCTIONS, text
        assert not any(text != other and text in other for other in items), text
    # Nothing is dropped or reworded: the items read back as the outline itself.
    assert " ".join(items) == " ".join(record.outline.split())


def test_it_classifies_the_cost_questions_common_miss_as_a_red_flag() -> None:
    outline = seed_outline("Your LLM inference bill has doubled")
    miss = (
        "A common miss is treating unit cost as fixed when application behaviour often "
        "drives the bill."
    )

    assert {item.text: item.kind for item in derive_rubric(outline)}[miss] == RED_FLAG


def test_it_classifies_common_bugs_as_a_red_flag() -> None:
    outline = seed_outline("You have a training loop where you want to overlap")
    kinds = {item.text: item.kind for item in derive_rubric(outline)}

    assert kinds == {
        "Create a separate CUDA stream for compute and another for data transfer; use "
        "cudaEvent_t to signal when a transfer is complete before the compute stream "
        "proceeds.": CORE,
        "Common bugs: forgetting to record the event on the correct stream, calling "
        "cudaStreamSynchronize on the wrong stream blocking the CPU, and assuming the "
        "default stream is non-blocking.": RED_FLAG,
        "A strong answer also covers how torch.cuda.Stream and stream context managers map "
        "onto these primitives.": STRONG,
    }


def test_it_classifies_what_a_strong_answer_adds_as_strong_across_the_seed() -> None:
    items = [item for record in RECORDS for item in derive_rubric(record.outline)]
    strong_openings = ("A strong answer", "Mention", "Strong answers")
    openers = [item for item in items if item.text.startswith(strong_openings)]

    # 11 of the 25 outlines say what a strong answer adds, in one of these three ways.
    assert len(openers) == 11
    assert {item.kind for item in openers} == {STRONG}
    assert {item.text.split()[0] for item in openers} == {"A", "Mention", "Strong"}


def test_it_keeps_abbreviations_and_dotted_names_inside_their_sentence() -> None:
    outline = (
        "Compare NCCL vs. Gloo for small messages. "
        "Overlap the copy on a side stream, e.g. torch.cuda.Stream, with compute. "
        "Call torch.cuda.synchronize() only at the end, i.e. once per step."
    )

    assert texts(outline) == [
        "Compare NCCL vs. Gloo for small messages.",
        "Overlap the copy on a side stream, e.g. torch.cuda.Stream, with compute.",
        "Call torch.cuda.synchronize() only at the end, i.e. once per step.",
    ]


def test_it_keeps_the_seeds_abbreviations_whole() -> None:
    checkpoints = texts(seed_outline("You are running a 70B model training job"))
    ttft = texts(seed_outline("Your LLM serving SLA is 2s p95 TTFT"))
    nccl = texts(seed_outline("Explain how NCCL implements ring-allreduce"))

    assert checkpoints[-1] == (
        "Mention PyTorch Distributed Checkpoint (DCP), fsync semantics on distributed "
        "filesystems like Lustre, and the difference between saving optimizer state (large) "
        "vs. model weights only."
    )
    assert ttft[0] == (
        "Check whether the spike correlates with any deployment, config change, or external "
        "event (e.g., a long-context request flooding the queue)."
    )
    assert nccl[1] == (
        "NCCL chooses chunk size based on buffer size, algorithm threshold (tree vs. ring), "
        "and topology."
    )


def test_it_keeps_a_parenthesis_that_spans_a_full_stop_in_one_item() -> None:
    outline = "Use a tree for small tensors (see the NCCL docs. Section 2 covers it). Then tune."

    assert texts(outline) == [
        "Use a tree for small tensors (see the NCCL docs. Section 2 covers it).",
        "Then tune.",
    ]


def test_it_makes_one_item_of_a_repeated_sentence() -> None:
    outline = "Measure before tuning. Profile the kernel. Measure before tuning."

    assert texts(outline) == ["Measure before tuning.", "Profile the kernel."]


def test_it_ends_an_unterminated_last_sentence_with_a_full_stop() -> None:
    assert texts("Shards the optimizer state. bf16 keeps the exponent range") == [
        "Shards the optimizer state.",
        "bf16 keeps the exponent range.",
    ]


def test_it_returns_no_items_for_a_blank_outline() -> None:
    assert derive_rubric("   \n ") == []
