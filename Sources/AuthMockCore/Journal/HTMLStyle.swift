/// The one stylesheet of authmock's HTML: the conformance report's `style.css` and the live page's
/// (`serve`'s `/_authmock/style.css`), so that both read alike, dark mode included.
public enum HTMLStyle {
    public static let stylesheet = """
        :root {
          --text: #1d2126; --muted: #525d67; --bg: #ffffff; --panel: #f5f7f9; --line: #d9dee3;
          --pass: #156a2e; --pass-bg: #dcf5e3; --warn: #8a5a00; --warn-bg: #fff1c9; --info: #0b5cad; --info-bg: #dcebfb;
          --off: #5f6b76; --off-bg: #eceff2; --fail: #b42318; --fail-bg: #fde2df; --error: #7a1fa2; --error-bg: #f1dcf8;
          --chosen: #1d2126; --chosen-text: #ffffff; --focus: #0b5cad;
        }
        @media (prefers-color-scheme: dark) {
          :root {
            --text: #e6e9ec; --muted: #9aa5b1; --bg: #15181b; --panel: #1e2327; --line: #343b42;
            --pass: #6fdc8c; --pass-bg: #16351f; --warn: #f2c94c; --warn-bg: #3a3010; --info: #79b8ff; \
        --info-bg: #132c47;
            --off: #9aa5b1; --off-bg: #262c31; --fail: #ff8a80; --fail-bg: #431a17; --error: #d8a4f0; \
        --error-bg: #35173f;
            --chosen: #e6e9ec; --chosen-text: #15181b; --focus: #79b8ff;
          }
        }
        * { box-sizing: border-box; }
        body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--text); \
        background: var(--bg); margin: 0 auto; padding: 1rem 1.5rem 3rem; max-width: 110rem; }
        a { color: inherit; }
        code, pre, .request { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; \
        font-size: 0.9em; }
        pre { background: var(--panel); border: 1px solid var(--line); padding: 0.6rem 0.8rem; overflow-x: auto; \
        white-space: pre-wrap; overflow-wrap: anywhere; }
        h1 { font-size: 1.5rem; margin: 0.5rem 0; }
        h2 { font-size: 1.15rem; margin: 1.8rem 0 0.6rem; border-bottom: 1px solid var(--line); \
        padding-bottom: 0.2rem; }
        h3 { font-size: 1rem; margin: 1.2rem 0 0.4rem; }
        nav { font-size: 0.9rem; color: var(--muted); }
        .muted, .generated, .hint, .version, .reference { color: var(--muted); }
        .hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); \
        white-space: nowrap; }

        /* Verdicts: one class each, for colour. */
        .v-pass { color: var(--pass); background: var(--pass-bg); }
        .v-non-strict { color: var(--warn); background: var(--warn-bg); }
        .v-informational { color: var(--info); background: var(--info-bg); }
        .v-unimplemented, .v-skip { color: var(--off); background: var(--off-bg); }
        .v-fail { color: var(--fail); background: var(--fail-bg); }
        .v-error { color: var(--error); background: var(--error-bg); }
        .glyph { font-family: "DejaVu Sans", "Segoe UI Symbol", "Noto Sans Symbols 2", sans-serif; \
        font-variant-emoji: text; font-weight: 700; }
        .badge { display: inline-block; padding: 0 0.45rem; border-radius: 0.3rem; font-weight: 600; \
        white-space: nowrap; }
        .legend ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.3rem 1.2rem; }

        /* Tables. */
        table { border-collapse: collapse; }
        th, td { border: 1px solid var(--line); padding: 0.2rem 0.45rem; }
        table.counts td { text-align: right; }
        table.counts td.zero { color: var(--muted); background: none; }
        table.counts th[scope=col] { font-weight: 600; font-size: 0.85rem; }
        table.matrix { font-size: 0.9rem; }
        table.matrix thead th { position: sticky; top: 0; background: var(--bg); z-index: 1; }
        table.matrix th.client { writing-mode: vertical-rl; transform: rotate(180deg); text-align: left; \
        vertical-align: bottom; padding: 0.45rem 0.2rem; font-weight: 600; white-space: nowrap; }
        table.matrix th.client a { text-decoration: none; }
        table.matrix th.case { text-align: left; font-weight: normal; min-width: 22rem; }
        table.matrix th.case .title { color: var(--muted); }
        table.matrix td.cell { text-align: center; padding: 0; min-width: 2rem; }
        table.matrix td.cell a { display: block; padding: 0.2rem 0.3rem; text-decoration: none; }
        table.matrix td.cell a:hover, table.matrix td.cell a:focus { outline: 2px solid var(--focus); \
        outline-offset: -2px; }
        table.matrix td.none { background: repeating-linear-gradient(45deg, var(--panel), var(--panel) 4px, var(--bg) \
        4px, var(--bg) 8px); }

        /* Filters: the radio inputs are hidden; their labels are the buttons. */
        input.filter { position: absolute; opacity: 0; pointer-events: none; }
        .filters p { margin: 0.3rem 0; display: flex; flex-wrap: wrap; gap: 0.3rem; align-items: center; }
        .filters .what { font-weight: 600; min-width: 4.5rem; }
        .filters label { cursor: pointer; border: 1px solid var(--line); border-radius: 1rem; \
        padding: 0.05rem 0.6rem; user-select: none; }
        .filters label .n { color: var(--muted); font-size: 0.8em; }
        .filters .hint { font-size: 0.85rem; display: block; }

        /* Notes per client. */
        .notes article { margin-bottom: 1.5rem; }
        .note p, .note ul { background: var(--panel); border-left: 3px solid var(--line); \
        padding: 0.4rem 0.7rem; margin: 0.4rem 0; }
        .why .links { margin: 0.3rem 0; } .notable .why { margin: 0.2rem 0 0.4rem 1rem; \
        } .why.stale, p.stale { color: var(--fail); }
        table.matrix td.cell sup.noted { font-size: 0.7em; margin-left: 0.1em; } .unexplained { font-size: 0.9em; }
        ul.notable { padding-left: 1.2rem; }
        ul.notable li { margin: 0.25rem 0; }
        ul.notable a { text-decoration: none; }

        /* Cell pages. */
        .verdict-line { font-size: 1.1rem; }
        ul.checks { list-style: none; padding: 0; }
        ul.checks li { border: 1px solid var(--line); border-left-width: 4px; padding: 0.35rem 0.6rem; \
        margin: 0.35rem 0; }
        ul.checks li.held { border-left-color: var(--pass); }
        ul.checks li.broken { border-left-color: var(--fail); background: var(--fail-bg); }
        ul.checks li.not-judged { border-left-color: var(--off); color: var(--muted); }
        ul.checks li.observed { border-left-color: var(--info); }
        ul.checks .mark { font-weight: 700; display: inline-block; width: 1.1rem; }
        ul.checks li.held .mark { color: var(--pass); }
        ul.checks li.broken .mark { color: var(--fail); }
        ul.checks .state { font-size: 0.8rem; text-transform: uppercase; letter-spacing: 0.03em; color: var(--muted); }
        ul.checks .grade { font-size: 0.8rem; border: 1px solid var(--line); border-radius: 0.3rem; padding: 0 0.3rem; }
        ul.checks .detail { margin: 0.25rem 0 0 1.1rem; white-space: pre-wrap; word-break: break-word; }
        .verdict-line { display: flex; flex-wrap: wrap; gap: 0.3rem 0.6rem; align-items: baseline; }
        .verdict-line .decisive { margin: 0; flex: 1 1 20rem; font-weight: 600; overflow-wrap: anywhere; }
        ol.findings > li { margin: 0.45rem 0; overflow-wrap: anywhere; padding-left: 0.2rem; }
        ol.findings > li + li { border-top: 1px solid var(--line); padding-top: 0.45rem; }
        ol.findings .expected { font-weight: 600; }
        ol.findings .counts, ul.notable ul.findings { font-size: 0.85em; color: var(--muted); }
        ul.notable ul.findings { margin: 0.1rem 0 0.3rem; padding-left: 1.2rem; overflow-wrap: anywhere; }
        li.observation { color: var(--info); overflow-wrap: anywhere; }
        nav.others { margin: 0.3rem 0; display: flex; flex-wrap: wrap; gap: 0.3rem; align-items: center; }
        nav.others a { border-radius: 0.3rem; padding: 0 0.4rem; text-decoration: none; }
        dl.run { display: grid; grid-template-columns: max-content 1fr; gap: 0.1rem 0.8rem; margin: 0.4rem 0; \
        color: var(--muted); }
        dl.run dt { font-weight: 600; } dl.run dd { margin: 0; overflow-wrap: anywhere; }
        .scroll { overflow-x: auto; max-width: 100%; }
        .reproduce pre.command { user-select: all; }
        @media (max-width: 600px) {
          body { padding: 0.5rem 0.6rem 2rem; font-size: 14px; }
          table.matrix th.case { min-width: 11rem; }
          table.matrix th.case .title { display: none; }
          table.headers th { width: auto; white-space: normal; }
          details.exchange, li.entry .verdict, li.entry .leak, li.entry .fault { margin-left: 0; }
        }

        /* The journal (JournalHTML's markup, shared with `serve`'s live page). */
        ol.journal { list-style: none; padding: 0; }
        li.entry { border: 1px solid var(--line); border-left-width: 4px; padding: 0.4rem 0.7rem; margin: 0.45rem 0; \
        word-break: break-word; }
        li.entry.ok { border-left-color: var(--pass); }
        li.entry.challenge { border-left-color: var(--warn); }
        li.entry.rejected { border-left-color: var(--fail); border-left-style: double; border-left-width: 6px; \
        background: var(--fail-bg); }
        li.entry.refused { border-left-color: var(--fail); border-left-style: dashed; }
        li.entry.counted { box-shadow: 0 0 0 2px var(--focus); }
        li.entry .counted-by { float: right; font-size: 0.8rem; color: var(--focus); font-weight: 600; }
        li.entry .tone { font-size: 0.8rem; text-transform: uppercase; letter-spacing: 0.03em; }
        li.entry.rejected .tone { color: var(--fail); font-weight: 700; }
        li.entry .protocol { color: var(--muted); }
        details.exchange { margin: 0.3rem 0 0.2rem 1.2rem; font-size: 0.9em; }
        details.exchange > summary { cursor: pointer; color: var(--muted); }
        table.headers { margin: 0.3rem 0; width: 100%; max-width: 60rem; }
        table.headers caption { text-align: left; font-weight: 600; padding: 0.2rem 0; }
        table.headers th { text-align: left; font-weight: 600; white-space: nowrap; vertical-align: top; \
        width: 12rem; }
        table.headers td { overflow-wrap: anywhere; }
        table.headers th.meta { font-weight: normal; color: var(--muted); }
        details.secret { display: inline; }
        details.secret > summary { display: inline; cursor: pointer; }
        details.secret .reveal { font-size: 0.8em; text-decoration: underline; color: var(--focus); }
        details.secret[open] .reveal { display: none; }
        details.secret code.raw { display: block; margin-top: 0.2rem; }
        dl.decoded { display: grid; grid-template-columns: max-content 1fr; gap: 0 0.6rem; margin: 0.3rem 0 0; }
        dl.decoded dt { color: var(--muted); }
        dl.decoded dd { margin: 0; overflow-wrap: anywhere; }
        li.entry .line { font-weight: 600; }
        li.entry .seq { color: var(--muted); margin-right: 0.3rem; }
        li.entry .hop { background: var(--info-bg); color: var(--info); border-radius: 0.3rem; padding: 0 0.3rem; \
        font-size: 0.85em; }
        li.entry .where { color: var(--muted); font-weight: normal; font-size: 0.85em; }
        li.entry code.request { background: var(--panel); padding: 0 0.3rem; }
        li.entry .status { font-family: ui-monospace, Menlo, Consolas, monospace; }
        li.entry.ok .status { color: var(--pass); }
        li.entry.challenge .status { color: var(--warn); }
        li.entry.refused .status, li.entry.rejected .status { color: var(--fail); }
        li.entry .host, li.entry .credentials, li.entry div.challenge { font-size: 0.9em; margin-left: 1.2rem; }
        li.entry .credentials .scheme { font-weight: 600; }
        li.entry div.challenge code { color: var(--warn); }
        li.entry .verdict { margin-left: 1.2rem; }
        li.entry .verdict .name { font-family: ui-monospace, Menlo, Consolas, monospace; font-weight: 600; }
        li.entry .leak { margin-left: 1.2rem; color: var(--fail); background: var(--fail-bg); font-weight: 700; \
        padding: 0 0.3rem; }
        li.entry .fault { margin-left: 1.2rem; color: var(--error); }
        p.empty { color: var(--muted); font-style: italic; }

        """
}
