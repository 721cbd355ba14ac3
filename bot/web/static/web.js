// Fate Table's live web view: replace the page body whenever the bot sends a new one, and say
// when the connection is lost (EventSource reconnects by itself; the bot resends the page).
(function () {
  "use strict";
  var body = document.body;
  var page = document.getElementById("page");
  var live = document.getElementById("live");
  var version = body.getAttribute("data-version");
  var source = new EventSource(body.getAttribute("data-events"));

  function show(ok, text) {
    live.textContent = text;
    live.className = ok ? "live ok" : "live lost";
    body.setAttribute("data-live", ok ? "yes" : "no");
  }

  source.onopen = function () { show(true, "live"); };
  source.onerror = function () {
    if (source.readyState === EventSource.CLOSED) {
      show(false, "this link no longer works; reload to try again");
    } else {
      show(false, "connection lost, reconnecting…");
    }
  };
  source.addEventListener("page", function (event) {
    var message = JSON.parse(event.data);
    if (message.version !== version) {
      page.innerHTML = message.html;
      version = message.version;
      body.setAttribute("data-version", version);
    }
    show(true, "live");
  });
  source.addEventListener("refused", function (event) {
    source.close();
    page.innerHTML = JSON.parse(event.data).html;
    show(false, "this link no longer works");
  });
})();
