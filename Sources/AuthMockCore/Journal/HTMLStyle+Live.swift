extension HTMLStyle {
    /// The rules only `serve`'s live page needs (its controls, its status line, the try commands of an empty
    /// journal), served after ``stylesheet`` at `/_authmock/style.css`: the report does not carry them.
    public static let live = """

        /* The live page (serve's /_authmock/). */
        main { display: block; }
        #facts dl { display: grid; grid-template-columns: max-content auto; gap: 0.15rem 1rem; margin: 0; }
        #facts dt { color: var(--muted); }
        #facts dd { margin: 0; overflow-wrap: anywhere; }
        #facts dt code.key { font-size: 0.8em; }
        .controls { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; margin: 0.6rem 0; }
        .controls label { font-weight: 600; }
        .controls input, .controls button { font: inherit; color: var(--text); background: var(--panel); \
        border: 1px solid var(--muted); border-radius: 0.3rem; padding: 0.2rem 0.6rem; }
        .controls input { min-width: 18rem; }
        .controls button { cursor: pointer; }
        .controls button[aria-pressed=true] { color: var(--chosen-text); background: var(--chosen); }
        .controls input:focus-visible, .controls button:focus-visible, a:focus-visible { \
        outline: 2px solid var(--focus); outline-offset: 2px; }
        #status { margin: 0.4rem 0; padding: 0.2rem 0.6rem; border-left: 4px solid var(--pass); \
        background: var(--panel); }
        [data-live=paused] #status { border-left-color: var(--warn); color: var(--warn); background: var(--warn-bg); }
        [data-live=stopped] #status { border-left-color: var(--fail); color: var(--fail); background: var(--fail-bg); \
        font-weight: 600; }
        .empty-state { border: 1px dashed var(--line); padding: 0.4rem 0.8rem; }
        .empty-state pre.try { margin: 0.4rem 0; }
        [hidden] { display: none !important; }

        """
}
