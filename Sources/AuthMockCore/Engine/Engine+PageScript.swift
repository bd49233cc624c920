extension Engine {
    /// The live page's script: polls `?after=N` every second and puts the newer entries on top, keeping at most
    /// the list's `data-cap` of them; filters the shown entries by their text; pauses and resumes; clears the
    /// list (new entries still arrive). When a poll fails it marks the page stopped
    /// (`<html data-live="stopped">`) and retries after 2, 4, 8… up to 30 s, not every second. Plain ES5, no
    /// inline handlers: the Content-Security-Policy allows this script by its hash (``pageScriptHash``) only.
    static let pageScript = """
        (function () {
          var root = document.documentElement, list = document.getElementById("journal");
          var statusText = document.getElementById("status"), filter = document.getElementById("filter");
          var pause = document.getElementById("pause"), clear = document.getElementById("clear");
          var shown = document.getElementById("shown"), cap = parseInt(list.dataset.cap, 10) || 500;
          var delay = 1, timer = null, paused = false;
          function say(state, text) {
            root.dataset.live = state;
            if (statusText.textContent !== text) { statusText.textContent = text; }
          }
          function matches(item, words) {
            return !words || item.textContent.toLowerCase().indexOf(words) !== -1;
          }
          function applyFilter() {
            var words = filter.value.trim().toLowerCase(), items = list.children, visible = 0;
            for (var i = 0; i < items.length; i++) {
              items[i].hidden = !matches(items[i], words);
              if (!items[i].hidden) { visible++; }
            }
            shown.textContent = words ? visible + " of " + items.length + " shown" : "";
          }
          function add(html) {
            if (!html) { return; }
            list.insertAdjacentHTML("afterbegin", html);
            var first = list.querySelector("li[data-seq]");
            if (first) { list.dataset.last = first.dataset.seq; }
            while (list.children.length > cap) { list.removeChild(list.lastElementChild); }
            var empty = document.getElementById("empty");
            if (empty) { empty.hidden = true; }
            applyFilter();
          }
          function schedule(seconds) {
            clearTimeout(timer);
            timer = setTimeout(poll, seconds * 1000);
          }
          function poll() {
            timer = null;
            if (paused) { return; }
            fetch("?after=" + list.dataset.last, {cache: "no-store"}).then(function (r) {
              if (!r.ok) { throw new Error("HTTP " + r.status); }
              return r.text();
            }).then(function (html) {
              delay = 1;
              add(html);
              if (!paused) {
                say("polling", "Live: asking for new entries every second.");
                schedule(1);
              }
            }).catch(function () {
              delay = Math.min(delay * 2, 30);
              if (paused) { return; }
              say("stopped", "The server stopped answering \\u2014 retrying in " + delay + " s.");
              schedule(delay);
            });
          }
          pause.addEventListener("click", function () {
            paused = !paused;
            pause.setAttribute("aria-pressed", paused ? "true" : "false");
            pause.textContent = paused ? "Resume" : "Pause";
            if (paused) {
              clearTimeout(timer);
              say("paused", "Paused: not asking for new entries. Resume to catch up.");
            } else {
              delay = 1;
              say("polling", "Live: asking for new entries every second.");
              poll();
            }
          });
          clear.addEventListener("click", function () {
            while (list.firstChild) { list.removeChild(list.firstChild); }
            applyFilter();
          });
          filter.addEventListener("input", applyFilter);
          say("polling", "Live: asking for new entries every second.");
          schedule(1);
        })();
        """
}
