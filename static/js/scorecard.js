// "Not asked" leaves nothing to rate: the question's rating, rubric and follow-ups are
// cleared and disabled (a disabled field is not posted, so the server's refusal of a
// rated question not asked never meets an autosave), and come back when it is unticked.
(function () {
  function apply(box) {
    const section = box.closest("section.sq");
    if (!section) return;
    const answers = section.querySelectorAll(
      'input[name$="-rating"], input[name$="-checked"], input[name$="-follow_ups"]'
    );
    for (const input of answers) {
      if (box.checked) input.checked = false;
      input.disabled = box.checked;
    }
  }
  for (const box of document.querySelectorAll('input[name$="-not_asked"]')) {
    apply(box);
    box.addEventListener("change", () => apply(box));
  }
})();

// Save the draft scorecard as the interviewer works, so closing the page loses nothing.
(function () {
  const form = document.getElementById("scorecard");
  if (!form || form.dataset.autosave !== "1") return;
  const status = document.getElementById("autosave");
  const badge = document.getElementById("card-status");
  let timer = null;
  let inFlight = Promise.resolve();
  let request = null; // the autosave on the wire: its AbortController
  // Saving or submitting posts the whole form: an autosave queued by the last edit
  // (leaving a text box fires "change") would only reach a submitted card and fail.
  let leaving = false;
  // How long a submit waits for an autosave already on the wire before giving up on it.
  const FINISH_MS = 10000;

  // The draft's version as this page last saved or loaded it: the server refuses a
  // save over a newer one (another tab or device), and this page then stops saving.
  // A question swapped out of the interview since the page was opened is refused the
  // same way: the page would rate a question that is no longer the one asked.
  const version = form.querySelector('input[name="version"]');
  const STALE = {
    scorecard_changed_elsewhere: {
      notice: "This draft was changed in another tab or on another device.",
      status: "Not saved: this draft was changed elsewhere. Reload to continue.",
    },
    question_swapped: {
      notice: "A question of this interview was swapped for another since you opened this page.",
      status:
        "Not saved: a question was swapped for another since you opened this page. " +
        "Reload to continue.",
    },
  };
  let changedElsewhere = null; // what changed under this page, once the server says so
  function stale(code) {
    changedElsewhere = STALE[code];
    const notice = document.createElement("p");
    notice.className = "notice";
    notice.id = "changed-elsewhere";
    notice.setAttribute("role", "alert");
    notice.textContent =
      `${changedElsewhere.notice} Your edits here since then are not saved. ` +
      "Reload the page to see the latest version.";
    const reload = document.createElement("button");
    reload.type = "button";
    reload.className = "button";
    reload.textContent = "Reload";
    reload.addEventListener("click", () => window.location.reload());
    notice.append(" ", reload);
    if (!document.getElementById("changed-elsewhere")) form.prepend(notice);
  }

  // What a refused autosave says, in plain words; the server's own words otherwise.
  const REFUSED = {
    loop_decided: "the loop is decided, so this scorecard can no longer change.",
    scorecard_already_submitted: "this scorecard is already submitted.",
    scorecard_changed_elsewhere:
      "this draft was changed in another tab or on another device. Reload to continue.",
    question_swapped:
      "a question was swapped for another since you opened this page. Reload to continue.",
  };
  function refused(data) {
    const words = REFUSED[data.code] || data.error || "the server refused this change.";
    return `Not saved: ${words}`;
  }

  let owed = 0; // saves asked for and not yet answered
  // data-saved is "1" only when every edit so far has been saved: no save waiting on
  // its timer, in the queue or on the wire (tests and the pagehide handler rely on it).
  function settle(ok) {
    owed -= 1;
    form.dataset.saved = ok && owed === 0 && timer === null ? "1" : "0";
  }

  function save() {
    timer = null;
    owed += 1;
    const body = new FormData(form);
    body.delete("action");
    inFlight = inFlight.then(() => {
      if (leaving) return null; // submitted meanwhile: the form post carries this edit
      request = new AbortController();
      return fetch(window.location.pathname, {
        method: "POST",
        body,
        headers: { "X-Autosave": "1" },
        credentials: "same-origin",
        signal: request.signal,
      })
        .then((response) => response.json().then((data) => ({ ok: response.ok, data })))
        .then(({ ok, data }) => {
          status.textContent = ok ? `Draft saved at ${data.saved_at}` : refused(data);
          status.classList.toggle("error-text", !ok);
          if (ok) version.value = data.version;
          if (STALE[data.code]) stale(data.code);
          settle(ok);
          if (ok && badge) {
            // The first save starts the draft: "Not started" no longer holds.
            badge.textContent = "Draft";
            badge.className = "status status-draft";
          }
        })
        .catch((error) => {
          settle(false);
          if (error.name === "AbortError") return; // given up on by a submit
          status.textContent =
            "Not saved: the connection dropped. Keep this page open; your next change is saved once it is back.";
          status.classList.add("error-text");
        })
        .finally(() => {
          request = null;
        });
    });
    return inFlight;
  }

  function schedule(delay) {
    if (leaving) return;
    if (changedElsewhere) {
      status.textContent = changedElsewhere.status;
      return;
    }
    form.dataset.saved = "0";
    status.textContent = "Saving…";
    clearTimeout(timer);
    timer = setTimeout(save, delay);
  }

  form.addEventListener("change", () => schedule(150));
  form.addEventListener("input", (event) => {
    if (event.target.tagName === "TEXTAREA" || event.target.type === "text") schedule(800);
  });
  // Saving or submitting: no autosave may reach the server after the form's post.
  // A pending one is cancelled; one already on the wire is waited for (so it lands
  // first, whatever the machine's speed), or aborted after FINISH_MS, and the post
  // then goes with the same button.
  form.addEventListener("submit", (event) => {
    clearTimeout(timer);
    if (leaving) return; // the post itself, or a second click: let it go
    leaving = true;
    if (!request) return;
    event.preventDefault();
    const button = event.submitter;
    const pending = request;
    status.textContent = "Saving your last change first…";
    const giveUp = setTimeout(() => pending.abort(), FINISH_MS);
    inFlight.then(() => {
      clearTimeout(giveUp);
      form.requestSubmit(button);
    });
  });
  // Back to this page from the browser's cache after "Save draft": it is live again.
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) leaving = false;
  });
  // Leaving with unsaved typing: send what there is.
  window.addEventListener("pagehide", () => {
    if (form.dataset.saved === "0" && !leaving) {
      const body = new FormData(form);
      body.delete("action");
      fetch(window.location.pathname, {
        method: "POST", body, headers: { "X-Autosave": "1" }, keepalive: true, credentials: "same-origin",
      });
    }
  });
})();
