// Issue 60: on a phone the home table's rows stack as cards (extra.css), each cell labelled with its column's
// header ("State: saturated"). This labels the cells (data-label) and marks the table (data-cards): without the
// script the table stays a table, which scrolls sideways. On a wider screen the verdict runs under its row
// (the table a grid: --bw-columns, its columns but the verdict's).
var WIDER = {Benchmark: "7.5em", Coverage: "6.5em"};  // the columns of words: at least this wide on a wider screen
document$.subscribe(function () {
  document.querySelectorAll("article .bw-home").forEach(function (marker) {
    var table = marker.parentElement.querySelector(".bw-home ~ .md-typeset__scrollwrap table, .bw-home ~ table");
    if (!table || table.dataset.cards) return;
    var heads = Array.prototype.map.call(table.tHead.rows[0].cells, function (c) { return c.textContent.trim(); });
    Array.prototype.forEach.call(table.rows, function (r) {  // the header's cells too
      Array.prototype.forEach.call(r.cells, function (c, k) { c.setAttribute("data-label", heads[k]); });
    });
    var tracks = heads.filter(function (h) { return h !== "Verdict"; }).map(function (h) {
      return WIDER[h] ? "minmax(" + WIDER[h] + ", auto)" : "auto";
    });
    table.style.setProperty("--bw-columns", tracks.join(" "));
    table.dataset.cards = "1";
  });
});
