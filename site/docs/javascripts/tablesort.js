// Material for MkDocs' documented recipe for sortable tables (Reference > Data tables), with the
// tablesort script served from this site (javascripts/vendor/) instead of a CDN. A cell whose badge carries a
// data-sort key (a benchmark's state: its severity) sorts by that key, not by its text.
document$.subscribe(function () {
  var tables = document.querySelectorAll("article table:not([class])");
  tables.forEach(function (table) {
    table.querySelectorAll("td [data-sort]").forEach(function (badge) {
      badge.closest("td").setAttribute("data-sort", badge.getAttribute("data-sort"));
    });
    new Tablesort(table);
  });
});
