extension PageAssets {
    /// The page's style at `/app.css` (docs/WEB.md): dark like the glass, one column on a phone,
    /// two on a desktop, mirrored by logical properties under `dir="rtl"` while times, numbers
    /// and the pill stay left to right.
    package static let style = #"""
    :root{--bg:#0b0d10;--card:#151920;--line:#262c36;--text:#e6edf3;--dim:#8b96a5;--accent:#8cc8ff;--warn:#ffb86b;--bad:#ff7b7b;--ok:#7ee2a8;color-scheme:dark}
    *{box-sizing:border-box}
    [hidden]{display:none!important}
    body{margin:0;background:var(--bg);color:var(--text);font:16px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;padding-bottom:env(safe-area-inset-bottom)}
    h1{font-size:1.15rem;margin:0;letter-spacing:.02em}
    h2{font-size:.8rem;font-weight:600;text-transform:uppercase;letter-spacing:.08em;color:var(--dim);margin:0 0 .6rem}
    [dir=rtl] h2,:lang(ja) h2,:lang(zh) h2{letter-spacing:0}
    .bar{position:sticky;top:0;z-index:2;display:flex;align-items:center;gap:.75rem;padding:.6rem max(1rem,env(safe-area-inset-left));background:rgba(11,13,16,.92);backdrop-filter:blur(8px);border-bottom:1px solid var(--line)}
    #conn{display:inline-flex;align-items:center;gap:.4rem;font-size:.8rem;color:var(--dim);margin-inline-start:auto}
    #conn i{width:.55rem;height:.55rem;border-radius:50%;background:var(--dim)}
    #conn[data-state=live] i{background:var(--ok)}
    #conn[data-state=down]{color:var(--warn)}
    #conn[data-state=down] i{background:var(--warn);animation:blink 1.2s steps(2) infinite}
    @keyframes blink{50%{opacity:.2}}
    select,input,button{font:inherit;color:inherit}
    select{background:var(--card);border:1px solid var(--line);border-radius:.6rem;padding:.35rem .5rem}
    main{max-width:70rem;margin:0 auto;padding:1rem max(1rem,env(safe-area-inset-right)) 2rem max(1rem,env(safe-area-inset-left))}
    #app{display:grid;gap:1.25rem}
    .col{display:grid;gap:1.25rem;align-content:start;min-width:0}
    @media (min-width:860px){#app{grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:2rem}}
    .card{background:var(--card);border:1px solid var(--line);border-radius:1rem;padding:1rem}
    .stage{display:grid;justify-items:center;gap:.6rem}
    .pill{direction:ltr;background:#000;border-radius:1.6rem;padding:.9rem 1.4rem;width:100%;max-width:calc(512px + 2.8rem);box-shadow:0 0 0 1px #1c2129,0 .6rem 2.5rem rgba(140,200,255,.1)}
    .pill[data-on=false]{box-shadow:0 0 0 1px #1c2129}
    input::placeholder{color:#5d6673;opacity:1}
    #pill{display:block;width:100%;height:auto;margin:0 auto;image-rendering:pixelated}
    .scene{margin:0;color:var(--dim);font-size:.9rem;text-align:center}
    .scene b{color:var(--text);font-weight:600}
    #shown-timers{font-family:ui-monospace,Menlo,monospace;font-size:.8rem;word-spacing:.3rem}
    #message{position:fixed;z-index:3;inset-inline:1rem;bottom:calc(1rem + env(safe-area-inset-bottom));max-width:30rem;margin:0 auto;padding:.8rem 1rem;border-radius:.9rem;background:#2a1c1f;border:1px solid #5a2d33;color:var(--bad);text-align:center;box-shadow:0 .5rem 2rem #000}
    #message:empty{display:none}
    .note{color:var(--dim);margin:.25rem 0}
    .err{color:var(--bad);margin:.5rem 0 0}
    .err:empty{display:none}
    #st-warn{white-space:pre-line}
    #list{list-style:none;margin:0;padding:0;display:grid;gap:.9rem}
    .act{display:grid;gap:.3rem}
    .act[data-shown=true]{border-color:#35506b}
    .head{display:flex;align-items:baseline;gap:.6rem;min-width:0}
    .name{margin:0;font-size:1.05rem;font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;flex:1;min-width:0}
    .phase{font-size:.8rem;padding:.1rem .55rem;border-radius:1rem;background:#222a35;color:var(--accent);white-space:nowrap}
    .act[data-phase=paused] .phase{background:#3a2f1d;color:var(--warn)}
    .act[data-phase=complete] .phase,.act[data-phase=cycle_end] .phase{background:#1c3428;color:var(--ok)}
    .time,.tid{unicode-bidi:isolate}
    .time{direction:ltr;font-size:3.2rem;line-height:1.1;font-weight:300;font-variant-numeric:tabular-nums;letter-spacing:.01em;text-align:start}
    :root[dir=rtl] .time{text-align:end}
    .act[data-phase=paused] .time{color:var(--warn)}
    .act[data-stale=true] .time{opacity:.55}
    .meta{display:flex;flex-wrap:wrap;gap:.35rem .9rem;color:var(--dim);font-size:.9rem}
    .stale{color:var(--warn)}
    .cycle:empty{display:none}
    .tid{font-family:ui-monospace,Menlo,monospace;font-size:.8rem;margin-inline-start:auto}
    .ops{display:grid;grid-template-columns:repeat(3,1fr);gap:.5rem;margin-top:.5rem}
    button{min-height:2.75rem;padding:.45rem .7rem;border-radius:.75rem;border:1px solid var(--line);background:#1d232c;cursor:pointer;touch-action:manipulation}
    button:hover{filter:brightness(1.15)}
    button:disabled{opacity:.45;cursor:default}
    button.primary{background:var(--accent);border-color:var(--accent);color:#061423;font-weight:600}
    button.big{width:100%;min-height:3.25rem;font-size:1.1rem;margin-top:.4rem}
    :focus-visible{outline:2px solid var(--accent);outline-offset:2px}
    form{display:grid;gap:.8rem}
    fieldset{border:0;margin:0;padding:0;display:grid;gap:.6rem;min-width:0}
    fieldset:disabled{opacity:.4}
    label{display:grid;gap:.3rem;font-size:.9rem;color:var(--dim)}
    input:not([type=radio]){width:100%;background:#0e1116;border:1px solid var(--line);border-radius:.7rem;padding:.65rem .75rem;color:var(--text);font-size:1.05rem;min-height:2.9rem}
    input[type=number]{font-variant-numeric:tabular-nums}
    :root[dir=rtl] input[dir=ltr]{text-align:right}
    input:user-invalid{border-color:var(--bad)}
    .row{display:grid;grid-template-columns:1fr 1fr;gap:.75rem}
    .hint{margin:0;font-size:.8rem;color:var(--dim)}
    .seg{display:grid;grid-template-columns:1fr 1fr;background:#0e1116;border:1px solid var(--line);border-radius:.8rem;padding:.2rem}
    .seg input{position:absolute;opacity:0;pointer-events:none}
    .seg label{display:block;text-align:center;padding:.55rem;border-radius:.6rem;color:var(--text);cursor:pointer;font-size:1rem}
    .seg input:checked+label{background:#2a3442}
    .seg input:focus-visible+label{outline:2px solid var(--accent)}
    .vh{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
    dl{display:grid;grid-template-columns:auto 1fr;gap:.45rem 1rem;margin:0;font-size:.92rem}
    dt{color:var(--dim)}
    dd{margin:0;min-width:0;overflow-wrap:anywhere}
    dd .chip{display:inline-block;margin-inline-end:.35rem;padding:0 .45rem;border-radius:.5rem;background:#222a35}
    dd[data-good=true]{color:var(--ok)}
    dd[data-good=false]{color:var(--warn)}
    .tools{display:flex;gap:.6rem;flex-wrap:wrap;margin-top:1rem}
    .tools button{flex:1}
    #login{max-width:24rem;margin:3rem auto}
    @media (prefers-reduced-motion:reduce){*{animation:none!important}}

    """#
}
