// Buttons with data-confirm ask before they submit (no inline script: the CSP forbids it).
document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-confirm]");
  if (button && !window.confirm(button.dataset.confirm)) event.preventDefault();
});
