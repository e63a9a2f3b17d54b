/**
 * The report's only script, inlined: expand or collapse every step and show only problems. The page
 * reads fully without it; the toolbar stays hidden unless the script runs.
 */
export const TRACE_REPORT_SCRIPT = `
(function () {
  "use strict";
  var toolbar = document.getElementById("toolbar");
  if (!toolbar) return;
  toolbar.hidden = false;
  function setAll(open) {
    var steps = document.querySelectorAll("details.step");
    for (var index = 0; index < steps.length; index += 1) steps[index].open = open;
  }
  document.getElementById("expand-all").addEventListener("click", function () { setAll(true); });
  document.getElementById("collapse-all").addEventListener("click", function () { setAll(false); });
  document.getElementById("only-problems").addEventListener("change", function (event) {
    document.body.classList.toggle("only-problems", event.target.checked);
  });
})();
`;
