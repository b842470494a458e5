// Print buttons without inline handlers (the content security policy forbids inline script).
document.querySelectorAll("[data-print]").forEach((button) => {
  button.addEventListener("click", () => window.print());
});
