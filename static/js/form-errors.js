// A page that answers a form with errors opens on their summary ([data-error-summary]):
// focus moves there, so a screen reader reads what to fix and a keyboard user tabs
// straight into the links to each field. Without this, Save seems to do nothing when
// the first error is below the fold.
(function () {
  // Follow a summary link: focus the field and scroll so that its message shows too. A
  // plain jump would put the field at the top of the window and a message above it
  // (a question's, say) out of sight.
  function reveal(target) {
    const ids = (target.getAttribute("aria-describedby") || "").split(/\s+/).filter(Boolean);
    const parts = [target, target.closest("label"), ...ids.map((id) => document.getElementById(id))];
    const top = parts
      .filter(Boolean)
      .reduce((a, b) => (b.getBoundingClientRect().top < a.getBoundingClientRect().top ? b : a));
    target.focus({ preventScroll: true });
    top.scrollIntoView({ block: "start" });
  }

  document.addEventListener("DOMContentLoaded", () => {
    const summary = document.querySelector("[data-error-summary]");
    if (!summary) return;
    if (!summary.hasAttribute("tabindex")) summary.setAttribute("tabindex", "-1");
    summary.focus();
    summary.scrollIntoView({ block: "start" });
    summary.addEventListener("click", (event) => {
      const link = event.target.closest('a[href^="#"]');
      const target = link && document.getElementById(decodeURIComponent(link.hash.slice(1)));
      if (!target) return;
      event.preventDefault();
      reveal(target);
    });
  });
})();
