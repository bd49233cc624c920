/// `site.js`, the report's one script, and only an addition: the filters work without it (CSS alone). It
/// keeps the chosen filters in the URL (`index.html#family=digest&verdict=fail`), so that a filtered view
/// can be linked, bookmarked and restored by the back button.
extension HTMLSite {
    static let script = """
        (function () {
          "use strict";
          var names = ["family", "verdict"];
          function chosen() {
            var parts = [];
            names.forEach(function (name) {
              var input = document.querySelector("input[name=" + name + "]:checked");
              var value = input ? input.id.slice(name.length + 1) : "all";
              if (value !== "all") { parts.push(name + "=" + encodeURIComponent(value)); }
            });
            return parts.join("&");
          }
          function restore() {
            var wanted = {};
            location.hash.replace(/^#/, "").split("&").forEach(function (pair) {
              var at = pair.indexOf("=");
              if (at > 0) { wanted[pair.slice(0, at)] = decodeURIComponent(pair.slice(at + 1)); }
            });
            names.forEach(function (name) {
              var input = document.getElementById(name + "-" + (wanted[name] || "all"));
              if (input && input.name === name) { input.checked = true; }
            });
          }
          function record() {
            var hash = chosen();
            var url = location.pathname + location.search + (hash ? "#" + hash : "");
            history.replaceState(null, "", url);
          }
          if (!document.querySelector("input.filter")) { return; }
          if (/^#(family|verdict)=/.test(location.hash)) { restore(); }
          document.addEventListener("change", function (event) {
            if (event.target.classList && event.target.classList.contains("filter")) { record(); }
          });
          window.addEventListener("hashchange", function () {
            if (/^#(family|verdict)=/.test(location.hash) || location.hash === "") { restore(); }
          });
        })();

        """
}
