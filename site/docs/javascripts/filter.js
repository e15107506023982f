// The filters above the table that follows a .bw-filter block (home, alerts): a text box (matches the benchmark's
// name), one menu per column Source, State and Kind (the cell's text), and one for Flags (a row shows when it has the
// chosen flag). A row shows when it matches every filter. No library needed.
document$.subscribe(function () {
  document.querySelectorAll("article .bw-filter").forEach(function (box) {
    var table = box.parentElement.querySelector(".bw-filter ~ .md-typeset__scrollwrap table, .bw-filter ~ table");
    if (!table || box.dataset.ready) return;
    box.dataset.ready = "1";
    var heads = Array.prototype.map.call(table.tHead.rows[0].cells, function (c) { return c.textContent.trim(); });
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var tests = {};
    function apply() {
      rows.forEach(function (r) {
        var show = Object.keys(tests).every(function (k) { return tests[k](r); });
        r.style.display = show ? "" : "none";
      });
    }
    var nameCol = heads.indexOf("Benchmark");
    if (nameCol >= 0) {
      var text = document.createElement("input");
      text.type = "search";
      text.placeholder = "Filter by name";
      text.setAttribute("aria-label", "Show only the benchmarks whose name contains this text");
      text.addEventListener("input", function () {
        var q = text.value.trim().toLowerCase();
        tests.name = function (r) { return !q || r.cells[nameCol].textContent.toLowerCase().indexOf(q) >= 0; };
        apply();
      });
      box.appendChild(text);
    }
    ["Source", "State", "Flags", "Kind"].forEach(function (name) {
      var col = heads.indexOf(name);
      if (col < 0) return;
      var words = name === "Flags";  // a row may have several flags: each is a value of its own
      var values = [];
      rows.forEach(function (r) {
        var cell = r.cells[col].textContent.trim();
        (words ? cell.split(/\s+/) : [cell]).forEach(function (v) {
          if (v && v !== "–" && values.indexOf(v) < 0) values.push(v);
        });
      });
      values.sort();
      var label = document.createElement("label");
      label.textContent = name + " ";
      var menu = document.createElement("select");
      menu.setAttribute("aria-label", "Show only the benchmarks of this " + name.toLowerCase().replace(/s$/, ""));
      menu.dataset.column = name;
      [["", "all"]].concat(values.map(function (v) { return [v, v]; })).forEach(function (pair) {
        var option = document.createElement("option");
        option.value = pair[0];
        option.textContent = pair[1];
        menu.appendChild(option);
      });
      menu.addEventListener("change", function () {
        var v = menu.value;
        tests[name] = function (r) {
          var cell = r.cells[col].textContent.trim();
          return !v || (words ? cell.split(/\s+/).indexOf(v) >= 0 : cell === v);
        };
        apply();
      });
      label.appendChild(menu);
      box.appendChild(label);
    });
  });
});
