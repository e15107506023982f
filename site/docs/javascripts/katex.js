// Material for MkDocs' documented recipe for math (Reference > Math, KaTeX), with KaTeX served from this site
// (javascripts/vendor/katex/) instead of a CDN, so the formulas typeset offline. Only what arithmatex marked
// as math is typeset: text from upstream (a model's name with a backslash) never is.
document$.subscribe(function () {
  document.querySelectorAll(".arithmatex").forEach(function (el) {
    renderMathInElement(el, {
      delimiters: [
        { left: "\\(", right: "\\)", display: false },
        { left: "\\[", right: "\\]", display: true },
      ],
    });
  });
});
