// Material for MkDocs' documented recipe for sortable tables (Reference > Data tables), with the
// tablesort script served from this site (javascripts/vendor/) instead of a CDN.
document$.subscribe(function () {
  var tables = document.querySelectorAll("article table:not([class])");
  tables.forEach(function (table) {
    new Tablesort(table);
  });
});
