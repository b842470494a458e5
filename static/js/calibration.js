// Calibration dashboard: charts (Chart.js, vendored) and the progress of a running job.
(function () {
  const run = document.getElementById("run");
  if (run && !["done", "failed"].includes(run.dataset.status)) {
    const bar = document.getElementById("run-bar");
    const text = document.getElementById("run-text");
    const poll = () =>
      fetch(run.dataset.url, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then((r) => r.json())
        .then((job) => {
          bar.value = job.progress;
          const stage = job.stage && job.stage !== job.status ? ": " + job.stage : "";
          text.textContent = job.status.charAt(0).toUpperCase() + job.status.slice(1) + stage;
          run.dataset.status = job.status;
          if (job.status === "done") {
            const url = new URL(window.location.href);
            url.searchParams.delete("job");
            window.location.replace(url.toString());
          } else if (job.status !== "failed") {
            setTimeout(poll, 1000);
          }
        })
        .catch(() => setTimeout(poll, 3000));
    setTimeout(poll, 500);
  }

  const source = document.getElementById("calibration-data");
  if (!source || typeof Chart === "undefined") return;
  const data = JSON.parse(source.textContent);
  if (!data) return;
  Chart.defaults.font.family = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
  Chart.defaults.animation = false;

  // A phone's width: shorter axis titles and names, so that nothing is clipped.
  const narrow = window.matchMedia("(max-width: 600px)").matches;
  const short = (name) => (narrow && name.length > 14 ? name.slice(0, 13) + "…" : name);

  const severity = document.getElementById("severity-chart");
  if (severity) {
    // Interviewers who are not separable from their questions have no severity.
    const rows = data.interviewers.filter((r) => r.severity !== null && r.severity_ci);
    // About 28 px an interviewer, so that no name is skipped or squeezed (set here: the
    // content security policy refuses inline style attributes, not the CSSOM).
    severity.parentElement.style.height = Math.max(320, 90 + 28 * rows.length) + "px";
    new Chart(severity, {
      data: {
        labels: rows.map((r) => r.name),
        datasets: [
          {
            type: "bar",
            label: "Severity (shrunk), 95% interval",
            data: rows.map((r) => r.severity_ci),
            backgroundColor: "rgba(36, 86, 199, 0.25)",
            borderColor: "rgba(36, 86, 199, 0.8)",
            borderWidth: 1,
            barPercentage: 0.35,
          },
          {
            type: "scatter",
            label: "Severity (shrunk)",
            data: rows.map((r) => ({ x: r.severity, y: r.name })),
            backgroundColor: "#2456c7",
            pointRadius: 5,
          },
          {
            type: "scatter",
            label: "Severity (raw estimate)",
            data: rows.filter((r) => r.raw !== null).map((r) => ({ x: r.raw, y: r.name })),
            backgroundColor: "#374151",
            borderColor: "#374151",
            borderWidth: 2,
            pointStyle: "crossRot",
            pointRadius: 7,
          },
          {
            // Positive = rates lower than co-panelists: the same sign as severity.
            type: "scatter",
            label: "Gap to co-panelists",
            data: rows.filter((r) => r.gap !== null && r.gap !== undefined).map((r) => ({ x: r.gap, y: r.name })),
            backgroundColor: "#b45309",
            pointStyle: "rectRot",
            pointRadius: 6,
          },
        ],
      },
      options: {
        indexAxis: "y",
        maintainAspectRatio: false,
        scales: {
          x: {
            title: {
              display: true,
              // Relative to this scope's interviewers, not an absolute standard.
              text: narrow ? "← generous · points · harsher →" : "← more generous · rating points vs this scope's interviewers · harsher →",
            },
          },
          y: {
            type: "category",
            labels: rows.map((r) => r.name),
            // Every name shown, shortened on a phone rather than clipped.
            ticks: { autoSkip: false, callback: (value, index) => short(rows[index].name) },
          },
        },
        plugins: { legend: { labels: { boxWidth: narrow ? 10 : 40 } } },
      },
    });
  }

  const candidates = document.getElementById("candidates-chart");
  if (candidates) {
    const rows = data.candidates.filter((r) => r.raw !== null && r.adjusted !== null);
    new Chart(candidates, {
      type: "scatter",
      data: {
        datasets: [
          {
            label: "Candidate",
            data: rows.map((r) => ({ x: r.raw, y: r.adjusted, name: r.name })),
            backgroundColor: "#2456c7",
          },
        ],
      },
      options: {
        maintainAspectRatio: false,
        scales: {
          x: { title: { display: true, text: "raw mean rating" } },
          y: { title: { display: true, text: "adjusted score" } },
        },
        plugins: {
          tooltip: { callbacks: { label: (c) => `${c.raw.name}: raw ${c.raw.x}, adjusted ${c.raw.y}` } },
        },
      },
    });
  }

  const trend = document.getElementById("trend-chart");
  if (trend && data.trend.length) {
    new Chart(trend, {
      type: "line",
      data: {
        // Labelled by the server in the viewer's zone, abbreviation included.
        labels: data.trend.map((p) => p.label),
        datasets: [
          { label: "Krippendorff's alpha (interval)", data: data.trend.map((p) => p.alpha), borderColor: "#2456c7" },
          { label: "G(q,k)", data: data.trend.map((p) => p.g_qk), borderColor: "#137a4b" },
        ],
      },
      options: {
        maintainAspectRatio: false,
        scales: {
          x: { title: { display: true, text: "computed at (" + data.zone + ")" } },
          y: { suggestedMin: 0, suggestedMax: 1 },
        },
      },
    });
  }
})();
