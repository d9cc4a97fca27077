// The pages' light or dark theme: the reader's system setting (prefers-color-scheme)
// unless they chose otherwise with the header's toggle, remembered in this browser.
// Loaded in <head> without `defer`, so the chosen theme is set before the first paint.
"use strict";
(function () {
  const KEY = "boardwire-theme";
  const root = document.documentElement;
  function stored() {
    try { return localStorage.getItem(KEY); } catch (e) { return null; }
  }
  function system() {
    return window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }
  function apply(theme) {
    root.setAttribute("data-theme", theme);
  }
  apply(stored() === "dark" || stored() === "light" ? stored() : system());
  if (window.matchMedia) {
    matchMedia("(prefers-color-scheme: dark)").addEventListener("change", function () {
      if (!stored()) apply(system());
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    const button = document.getElementById("theme-toggle");
    if (!button) return;
    button.hidden = false;
    const label = () => button.setAttribute("aria-pressed", String(root.getAttribute("data-theme") === "dark"));
    label();
    button.addEventListener("click", function () {
      const next = root.getAttribute("data-theme") === "dark" ? "light" : "dark";
      apply(next);
      try { localStorage.setItem(KEY, next); } catch (e) { /* private mode: this page only */ }
      label();
    });
  });
})();
