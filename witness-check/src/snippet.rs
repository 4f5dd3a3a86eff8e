//! Annotated source lines (annotate-snippets), for lint findings and rejection explanations:
//! the one place that knows how the renderer shows a line.

use annotate_snippets::{Level, Renderer, Snippet};

/// One annotated line: `src` is line `line` of `origin`, `span` the bytes of `src` to underline.
/// annotate-snippets shows a tab as four spaces but places the underline by bytes, so the tabs
/// are expanded here and the span moved with them (issue 21: underlines were off on
/// tab-indented lines).
pub fn render(
    level: Level,
    title: &str,
    src: &str,
    line: usize,
    origin: &str,
    span: std::ops::Range<usize>,
    label: &str,
) -> String {
    let shift = |i: usize| i + 3 * src[..i.min(src.len())].matches('\t').count();
    let span = shift(span.start)..shift(span.end);
    let expanded = src.replace('\t', "    ");
    let snippet = Snippet::source(&expanded).line_start(line).origin(origin).annotation(level.span(span).label(label));
    let rendered = Renderer::plain().render(level.title(title).snippet(snippet)).to_string();
    rendered
}
