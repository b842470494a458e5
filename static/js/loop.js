// Loop page: an interview's end time follows its start (start + the interview's length)
// until the recruiter sets the end by hand.
document.querySelectorAll("[data-minutes]").forEach((form) => {
  const start = form.querySelector("input[name$='-scheduled_start']");
  const end = form.querySelector("input[name$='-scheduled_end']");
  if (!start || !end) return;
  const pad = (n) => String(n).padStart(2, "0");
  end.dataset.auto = end.value ? "0" : "1";
  end.addEventListener("input", () => {
    end.dataset.auto = "0";
  });
  start.addEventListener("change", () => {
    if (!start.value || end.dataset.auto !== "1") return;
    const t = new Date(start.value); // datetime-local values are local time
    t.setMinutes(t.getMinutes() + Number(form.dataset.minutes));
    end.value = `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())}T${pad(t.getHours())}:${pad(t.getMinutes())}`;
  });
});
