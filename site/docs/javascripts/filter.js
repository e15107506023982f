// The home page's filter: one menu per column named in data-columns (Source, State) above the table that
// follows the .bw-filter block; a row shows when it matches every chosen value. No library needed.
document$.subscribe(function () {
  document.querySelectorAll("article .bw-filter").forEach(function (box) {
    var table = box.parentElement.querySelector(".bw-filter ~ .md-typeset__scrollwrap table, .bw-filter ~ table");
    if (!table || box.dataset.ready) return;
    box.dataset.ready = "1";
    var heads = Array.prototype.map.call(table.tHead.rows[0].cells, function (c) { return c.textContent.trim(); });
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var chosen = {};
    ["Source", "State"].forEach(function (name) {
      var col = heads.indexOf(name);
      if (col < 0) return;
      var values = [];
      rows.forEach(function (r) {
        var v = r.cells[col].textContent.trim();
        if (values.indexOf(v) < 0) values.push(v);
      });
      values.sort();
      var label = document.createElement("label");
      label.textContent = name + " ";
      var menu = document.createElement("select");
      menu.setAttribute("aria-label", "Show only the benchmarks of this " + name.toLowerCase());
      menu.dataset.column = name;
      [["", "all"]].concat(values.map(function (v) { return [v, v]; })).forEach(function (pair) {
        var option = document.createElement("option");
        option.value = pair[0];
        option.textContent = pair[1];
        menu.appendChild(option);
      });
      menu.addEventListener("change", function () {
        chosen[col] = menu.value;
        rows.forEach(function (r) {
          var show = Object.keys(chosen).every(function (c) {
            return !chosen[c] || r.cells[c].textContent.trim() === chosen[c];
          });
          r.style.display = show ? "" : "none";
        });
      });
      label.appendChild(menu);
      box.appendChild(label);
    });
  });
});
