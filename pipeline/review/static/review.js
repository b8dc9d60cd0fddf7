// memroute review: progressive enhancement only (every action works without this file).
// - "Erase everywhere" asks first; - "/" focuses the search; - Escape closes an open editor.
"use strict";
document.addEventListener("submit", (event) => {
  const form = event.target;
  const question = form.getAttribute("data-confirm");
  if (question && !window.confirm(question)) event.preventDefault();
});
document.addEventListener("keydown", (event) => {
  const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement?.tagName || "");
  if (event.key === "/" && !typing) {
    const search = document.getElementById("q");
    if (search) { event.preventDefault(); search.focus(); }
  } else if (event.key === "Escape") {
    const open = document.activeElement?.closest("details[open]");
    if (open) { open.open = false; open.querySelector("summary")?.focus(); }
  }
});
document.addEventListener("toggle", (event) => {
  const details = event.target;
  if (details.open && details.classList?.contains("inline-details")) {
    details.querySelector("input:not([type=hidden])")?.focus();
  }
}, true);
