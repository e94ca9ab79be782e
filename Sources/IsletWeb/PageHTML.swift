/// The web page's assets, served from the binary (docs/WEB.md): one page, `html` at `/`, its
/// style at `/app.css` and its script at `/app.js`. Nothing inline and nothing from elsewhere, so
/// the page runs under `Content-Security-Policy: default-src 'self'` and works offline.
package enum PageAssets {}

extension PageAssets {
    /// The page at `/`. Its English words are the fallback; the script puts the chosen
    /// language's in every element with a `data-w` key.
    package static let html = #"""
    <!doctype html>
    <html lang="en" dir="ltr">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
    <meta name="color-scheme" content="dark">
    <meta name="theme-color" content="#0b0d10">
    <title>Islet</title>
    <link rel="stylesheet" href="/app.css">
    <script src="/app.js" defer></script>
    </head>
    <body>
    <header class="bar">
      <h1>Islet</h1>
      <span id="conn" data-state="connecting" role="status"><i></i><span id="conn-text" data-w="conn_connecting">Connecting…</span></span>
      <select id="lang" aria-label="Language" data-wl="language">
        <option value="en">English</option>
        <option value="es">Español</option>
        <option value="pt">Português</option>
        <option value="ja">日本語</option>
        <option value="zh-Hans">简体中文</option>
        <option value="ar">العربية</option>
        <option value="he">עברית</option>
      </select>
    </header>
    <main>
    <noscript><p class="note">Islet's page needs JavaScript.</p></noscript>
    <section id="login" class="card" hidden>
      <form id="login-form">
        <h2 data-w="login_title">This display is protected</h2>
        <label for="password" data-w="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required>
        <button type="submit" class="primary" data-w="sign_in">Sign in</button>
        <p id="login-error" class="err" role="alert"></p>
      </form>
    </section>
    <div id="app" hidden>
    <div class="col">
      <section class="stage" aria-labelledby="scene-label">
        <div id="frame" class="pill" data-on="false"><canvas id="pill" width="128" height="32"></canvas></div>
        <p class="scene"><span id="scene-label" data-w="on_pill">On the pill</span>: <b id="presentation"></b> <span id="shown-timers" dir="ltr"></span></p>
      </section>
      <p id="message" role="status" aria-live="polite"></p>
      <p id="ro-note" class="note" data-w="e_read_only" hidden>View only: controls are off</p>
      <section aria-labelledby="timers-h">
        <h2 id="timers-h" data-w="timers">Timers</h2>
        <ul id="list"></ul>
        <p id="empty" class="note" data-w="no_timers">No timer right now.</p>
      </section>
    </div>
    <div class="col">
      <form id="start" class="card" autocomplete="off">
        <h2 data-w="new_session">New session</h2>
        <div class="seg" role="radiogroup" aria-labelledby="kind-l">
          <span id="kind-l" class="vh" data-w="kind">Type</span>
          <input type="radio" name="kind" id="kind-countdown" value="countdown" checked><label for="kind-countdown" data-w="countdown">Countdown</label>
          <input type="radio" name="kind" id="kind-stopwatch" value="stopwatch"><label for="kind-stopwatch" data-w="stopwatch">Stopwatch</label>
        </div>
        <fieldset id="length">
          <div class="row">
            <label><span data-w="minutes">Minutes</span><input id="minutes" type="number" inputmode="decimal" min="0.05" max="480" step="any" value="10" dir="ltr"></label>
            <label><span data-w="cycles">Cycles</span><input id="cycles" type="number" inputmode="numeric" min="0" max="99" step="1" value="1" dir="ltr"></label>
          </div>
          <p class="hint" data-w="cycles_hint">Cycles: 0 = no end</p>
        </fieldset>
        <label><span data-w="title">Title</span><input id="title" type="text" maxlength="64" placeholder="Optional" data-wp="optional"></label>
        <label><span data-w="timer_name">Timer name</span><input id="timer" type="text" maxlength="64" pattern="[A-Za-z0-9._\-]{1,64}" placeholder="meditation" dir="ltr" spellcheck="false" autocapitalize="off"></label>
        <button type="submit" class="primary big" id="start-go" data-op="start" data-w="start">Start</button>
      </form>
      <section id="status" class="card" aria-labelledby="status-h">
        <h2 id="status-h" data-w="display">Display</h2>
        <dl>
          <dt data-w="panel">Panel</dt><dd id="st-panel"></dd>
          <dt data-w="bus">Bus</dt><dd id="st-bus"></dd>
          <dt data-w="bus_errors">Bus errors</dt><dd id="st-errors"></dd>
          <dt>MQTT</dt><dd id="st-mqtt"></dd>
          <dt data-w="sync">Sync group</dt><dd id="st-sync"></dd>
          <dt data-w="peers">Other displays</dt><dd id="st-peers"></dd>
          <dt data-w="version">Version</dt><dd id="st-version"></dd>
          <dt data-w="uptime">Uptime</dt><dd id="st-uptime"></dd>
        </dl>
        <p id="st-warn" class="err" hidden></p>
        <div class="tools">
          <button id="test-pattern" data-op="test_pattern" data-w="p_test_pattern">Test pattern</button>
          <button id="logout" data-w="sign_out" hidden>Sign out</button>
        </div>
      </section>
    </div>
    </div>
    </main>
    <template id="row">
      <li class="act card">
        <div class="head"><h3 class="name"></h3><span class="phase"></span></div>
        <div class="time" dir="ltr"></div>
        <div class="meta"><span class="cycle"></span><span class="stale" data-w="stale" hidden>May be out of date</span><bdi class="tid" dir="ltr"></bdi></div>
        <div class="ops">
          <button data-op="pause" data-w="pause">Pause</button>
          <button data-op="resume" data-w="resume">Resume</button>
          <button data-op="toggle" data-w="toggle">Toggle</button>
          <button data-op="expand" data-w="expand">Expand</button>
          <button data-op="reset" data-w="reset">Reset</button>
          <button data-op="end" data-w="end">End</button>
        </div>
      </li>
    </template>
    </body>
    </html>

    """#
}
