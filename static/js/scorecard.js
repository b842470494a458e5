// Save the draft scorecard as the interviewer works, so closing the page loses nothing.
(function () {
  const form = document.getElementById("scorecard");
  if (!form || form.dataset.autosave !== "1") return;
  const status = document.getElementById("autosave");
  const badge = document.getElementById("card-status");
  let timer = null;
  let inFlight = Promise.resolve();
  // Saving or submitting posts the whole form: an autosave queued by the last edit
  // (leaving a text box fires "change") would only reach a submitted card and fail.
  let leaving = false;

  function save() {
    const body = new FormData(form);
    body.delete("action");
    inFlight = inFlight.then(() => {
      if (leaving) return null; // submitted meanwhile: the form post carries this edit
      return fetch(window.location.pathname, {
        method: "POST",
        body,
        headers: { "X-Autosave": "1" },
        credentials: "same-origin",
      })
        .then((response) => response.json().then((data) => ({ ok: response.ok, data })))
        .then(({ ok, data }) => {
          status.textContent = ok ? `Draft saved at ${data.saved_at}` : `Not saved: ${data.error}`;
          status.classList.toggle("error-text", !ok);
          form.dataset.saved = ok ? "1" : "0";
          if (ok && badge) {
            // The first save starts the draft: "Not started" no longer holds.
            badge.textContent = "Draft";
            badge.className = "status status-draft";
          }
        })
        .catch(() => {
          status.textContent = "Not saved: offline? Keep this page open and try again.";
          status.classList.add("error-text");
        });
    });
    return inFlight;
  }

  function schedule(delay) {
    if (leaving) return;
    form.dataset.saved = "0";
    status.textContent = "Saving…";
    clearTimeout(timer);
    timer = setTimeout(save, delay);
  }

  form.addEventListener("change", () => schedule(150));
  form.addEventListener("input", (event) => {
    if (event.target.tagName === "TEXTAREA" || event.target.type === "text") schedule(800);
  });
  form.addEventListener("submit", () => {
    leaving = true;
    clearTimeout(timer);
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
