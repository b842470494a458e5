// Loop page, "Panels and times": a text filter over each interview's list of people
// (the checkboxes work alone without this script), a note when a start moves off the
// day the busy times are for, and the first field with an error takes the focus after
// a refused save.
(function () {
  var fold = function (text) {
    return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  };

  document.querySelectorAll("#schedule .picker").forEach(function (picker, n) {
    var list = picker.querySelector("ul.people");
    if (!list) return;
    var items = Array.prototype.slice.call(list.querySelectorAll("li"));
    var legend = picker.closest(".slot").querySelector("legend");
    var filter = document.createElement("input");
    filter.type = "search";
    filter.className = "people-filter";
    filter.id = "people-filter-" + n;
    filter.placeholder = "Type to filter people";
    filter.setAttribute("aria-controls", list.id);
    filter.setAttribute("aria-label", "Filter interviewers for " + legend.firstChild.textContent.trim());
    var none = document.createElement("p");
    none.className = "muted small";
    none.hidden = true;
    none.setAttribute("role", "status");
    none.textContent = "Nobody matches; ticked people stay listed.";
    list.parentNode.insertBefore(filter, list);
    list.parentNode.insertBefore(none, list.nextSibling);

    // Ticked people stay listed whatever the filter, so nobody is picked unseen.
    var apply = function () {
      var words = fold(filter.value).split(/\s+/).filter(Boolean);
      var shown = 0;
      items.forEach(function (item) {
        var name = fold(item.querySelector(".name").textContent);
        var ticked = item.querySelector("input[type=checkbox]").checked;
        var match = words.every(function (w) { return name.indexOf(w) !== -1; });
        item.hidden = !(match || ticked);
        if (match) shown += 1;
      });
      none.hidden = shown > 0;
    };
    filter.addEventListener("input", apply);
    // Enter in the filter must not submit the whole schedule.
    filter.addEventListener("keydown", function (event) {
      if (event.key === "Enter") event.preventDefault();
    });
  });

  // Who else is busy is listed for the day the form opened with; once the start moves to
  // another day, that list no longer applies, so it gives way to a note until saved.
  document.querySelectorAll("#schedule .slot").forEach(function (slot) {
    var start = slot.querySelector("input[name$='-scheduled_start']");
    var picker = slot.querySelector(".picker");
    if (!start || !picker) return;
    var busy = Array.prototype.slice.call(picker.querySelectorAll(".busy"));
    var note = document.createElement("p");
    note.className = "muted small busy-note";
    note.hidden = true;
    note.setAttribute("role", "status");
    note.textContent =
      "Other interviews are listed for the day this form opened with. Save to check " +
      "the new day: a clash is refused and named.";
    picker.insertBefore(note, picker.querySelector("ul.people"));
    var sync = function () {
      var moved = start.value.slice(0, 10) !== start.defaultValue.slice(0, 10);
      busy.forEach(function (line) { line.hidden = moved; });
      note.hidden = !moved;
    };
    start.addEventListener("input", sync);
    start.addEventListener("change", sync);
  });

  var first =
    document.querySelector("#schedule [aria-invalid=true]") ||
    document.getElementById("schedule-errors");
  if (first) first.focus();
})();
