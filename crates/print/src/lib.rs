//! Printed sheets: what a club pins on the noticeboard after an evening (the standings, each
//! round's tables and scores) as an A4 PDF that also reads on a phone.
//!
//! A [`Sheet`] is plain data: a title, lines under it, and blocks (headings, paragraphs,
//! tables). [`layout`] sets it on pages (monospaced, so a column is a number of characters:
//! tables shrink their widest columns to fit the page and cut what does not fit with `…`,
//! repeat their header on each page, and a heading never ends a page); [`pdf`] writes the pages.
//!
//! ```
//! use tablekeeper_print::{pdf, Align, Block, Column, Sheet, Table};
//!
//! let sheet = Sheet {
//!     title: "Friday drive".into(),
//!     lines: vec!["Nomination Whist, 4 rounds".into()],
//!     blocks: vec![
//!         Block::Heading("Standings".into()),
//!         Block::Table(Table {
//!             columns: vec![Column::left("Player"), Column::right("Points")],
//!             rows: vec![vec!["Ann".into(), "42".into()], vec!["Bob".into(), "37".into()]],
//!         }),
//!     ],
//!     footer: "tablekeeper".into(),
//! };
//! let bytes = pdf(&sheet).expect("a sheet prints");
//! assert!(bytes.starts_with(b"%PDF-"));
//! ```

use std::sync::Arc;

use krilla::geom::Point;
use krilla::page::PageSettings;
use krilla::text::{Font, TextDirection};
use krilla::Document;

/// A4, in points.
const PAGE_WIDTH: f32 = 595.28;
const PAGE_HEIGHT: f32 = 841.89;
/// 15 mm all round.
const MARGIN: f32 = 42.5;
/// DejaVu Sans Mono's advance: 1233 units of 2048 to the em.
const ADVANCE: f32 = 1233.0 / 2048.0;
const BODY: f32 = 9.5;
const HEADING: f32 = 11.5;
const TITLE: f32 = 16.0;
const LEADING: f32 = 1.35;
/// Two characters between table columns.
const GUTTER: usize = 2;
/// A column is never cut narrower than this many characters.
const NARROWEST: usize = 4;

static REGULAR: &[u8] = include_bytes!("../fonts/DejaVuSansMono.ttf");
static BOLD: &[u8] = include_bytes!("../fonts/DejaVuSansMono-Bold.ttf");

/// A sheet to print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sheet {
    pub title: String,
    /// Under the title: the club, the date, the game and format.
    pub lines: Vec<String>,
    pub blocks: Vec<Block>,
    /// At the foot of every page, before "page n of m".
    pub footer: String,
}

/// A part of a sheet, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    Heading(String),
    /// Wrapped at words to the page's width.
    Paragraph(String),
    Table(Table),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub columns: Vec<Column>,
    /// Each as many cells as there are columns (missing cells print empty, extra ones not).
    pub rows: Vec<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub title: String,
    pub align: Align,
}

impl Column {
    /// A column of names and words.
    pub fn left(title: &str) -> Column {
        Column {
            title: title.to_owned(),
            align: Align::Left,
        }
    }

    /// A column of numbers.
    pub fn right(title: &str) -> Column {
        Column {
            title: title.to_owned(),
            align: Align::Right,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// Why a sheet did not print.
#[derive(Debug, thiserror::Error)]
pub enum PrintError {
    #[error("the embedded font could not be read")]
    Font,
    #[error("the PDF could not be written: {0}")]
    Pdf(String),
}

/// A line of text set on a page: its left edge and baseline in points from the page's top left.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub x: f32,
    pub y: f32,
    pub size: f32,
    pub bold: bool,
    pub text: String,
}

/// A page as laid out.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Page {
    pub runs: Vec<Run>,
}

/// How many characters of `size` fit across the page between the margins.
fn columns_at(size: f32) -> usize {
    // Truncation is the point: a partial character does not fit.
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a small positive count"
    )]
    let fit = ((PAGE_WIDTH - 2.0 * MARGIN) / (size * ADVANCE)).floor() as usize;
    fit
}

/// `text` cut to `width` characters, ending in `…` when it was longer.
fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// `text` wrapped at spaces into lines of at most `width` characters (a longer word is cut).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let word = cut(word, width);
        let needed = line.chars().count() + usize::from(!line.is_empty()) + word.chars().count();
        if needed > width && !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// Each column's width in characters: its widest cell, the widest columns narrowed in turn
/// until the row fits `width`.
fn widths(table: &Table, width: usize) -> Vec<usize> {
    let mut widths: Vec<usize> = table
        .columns
        .iter()
        .enumerate()
        .map(|(i, column)| {
            table
                .rows
                .iter()
                .filter_map(|row| row.get(i))
                .map(|cell| cell.chars().count())
                .chain([column.title.chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let gutters = GUTTER * widths.len().saturating_sub(1);
    while widths.iter().sum::<usize>() + gutters > width {
        let Some(widest) = widths.iter_mut().filter(|w| **w > NARROWEST).max_by_key(|w| **w) else {
            break;
        };
        *widest -= 1;
    }
    widths
}

/// One table row set in `widths`.
fn row_text(cells: &[String], columns: &[Column], widths: &[usize]) -> String {
    let mut text = String::new();
    for (i, (column, width)) in columns.iter().zip(widths).enumerate() {
        let cell = cut(cells.get(i).map_or("", String::as_str), *width);
        let pad = " ".repeat(width - cell.chars().count());
        if i > 0 {
            text.push_str(&" ".repeat(GUTTER));
        }
        match column.align {
            Align::Left => {
                text.push_str(&cell);
                text.push_str(&pad);
            }
            Align::Right => {
                text.push_str(&pad);
                text.push_str(&cell);
            }
        }
    }
    text.trim_end().to_owned()
}

/// Sets lines on pages, starting a page when the next line would not fit above the footer.
struct Setter {
    pages: Vec<Page>,
    y: f32,
}

impl Setter {
    fn bottom() -> f32 {
        PAGE_HEIGHT - MARGIN - BODY * LEADING * 2.0
    }

    fn room_for(&self, lines: usize, size: f32) -> bool {
        #[expect(clippy::cast_precision_loss, reason = "a few lines")]
        let needed = lines as f32 * size * LEADING;
        self.y + needed <= Self::bottom()
    }

    fn new_page(&mut self) {
        self.pages.push(Page::default());
        self.y = MARGIN;
    }

    fn line(&mut self, text: String, size: f32, bold: bool) {
        if !self.room_for(1, size) {
            self.new_page();
        }
        self.y += size * LEADING;
        if let Some(page) = self.pages.last_mut() {
            page.runs.push(Run {
                x: MARGIN,
                y: self.y,
                size,
                bold,
                text,
            });
        }
    }

    fn gap(&mut self) {
        self.y += BODY * LEADING * 0.6;
    }
}

/// The sheet set on A4 pages, each with its footer ("…, page n of m").
pub fn layout(sheet: &Sheet) -> Vec<Page> {
    let mut setter = Setter {
        pages: vec![Page::default()],
        y: MARGIN,
    };
    for line in wrap(&sheet.title, columns_at(TITLE)) {
        setter.line(line, TITLE, true);
    }
    for line in &sheet.lines {
        for line in wrap(line, columns_at(BODY)) {
            setter.line(line, BODY, false);
        }
    }
    let width = columns_at(BODY);
    for block in &sheet.blocks {
        setter.gap();
        match block {
            Block::Heading(text) => {
                // A heading keeps its first three lines with it.
                if !setter.room_for(4, HEADING) {
                    setter.new_page();
                }
                for line in wrap(text, columns_at(HEADING)) {
                    setter.line(line, HEADING, true);
                }
            }
            Block::Paragraph(text) => {
                for line in wrap(text, width) {
                    setter.line(line, BODY, false);
                }
            }
            Block::Table(table) => {
                let widths = widths(table, width);
                let titles: Vec<String> = table.columns.iter().map(|c| c.title.clone()).collect();
                let header = row_text(&titles, &table.columns, &widths);
                let rule = "─".repeat(widths.iter().sum::<usize>() + GUTTER * widths.len().saturating_sub(1));
                if !setter.room_for(3, BODY) {
                    setter.new_page();
                }
                setter.line(header.clone(), BODY, true);
                setter.line(rule.clone(), BODY, false);
                for row in &table.rows {
                    if !setter.room_for(1, BODY) {
                        setter.new_page();
                        setter.line(header.clone(), BODY, true);
                        setter.line(rule.clone(), BODY, false);
                    }
                    setter.line(row_text(row, &table.columns, &widths), BODY, false);
                }
            }
        }
    }
    let count = setter.pages.len();
    for (n, page) in setter.pages.iter_mut().enumerate() {
        let footer = format!("{}, page {} of {count}", sheet.footer, n + 1);
        page.runs.push(Run {
            x: MARGIN,
            y: PAGE_HEIGHT - MARGIN,
            size: BODY * 0.85,
            bold: false,
            text: cut(&footer, columns_at(BODY * 0.85)),
        });
    }
    setter.pages
}

/// The sheet as a PDF document.
///
/// # Errors
/// When the embedded font cannot be read or the PDF cannot be written (neither depends on the
/// sheet).
pub fn pdf(sheet: &Sheet) -> Result<Vec<u8>, PrintError> {
    let regular = Font::new(Arc::new(REGULAR.to_vec()).into(), 0).ok_or(PrintError::Font)?;
    let bold = Font::new(Arc::new(BOLD.to_vec()).into(), 0).ok_or(PrintError::Font)?;
    let settings = PageSettings::from_wh(PAGE_WIDTH, PAGE_HEIGHT).ok_or(PrintError::Font)?;
    let mut document = Document::new();
    document.set_metadata(krilla::metadata::Metadata::new().title(sheet.title.clone()));
    for laid in layout(sheet) {
        let mut page = document.start_page_with(settings.clone());
        let mut surface = page.surface();
        for run in &laid.runs {
            let font = if run.bold { bold.clone() } else { regular.clone() };
            surface.draw_text(
                Point::from_xy(run.x, run.y),
                font,
                run.size,
                &run.text,
                false,
                TextDirection::Auto,
            );
        }
        surface.finish();
        page.finish();
    }
    document.finish().map_err(|e| PrintError::Pdf(format!("{e:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: usize, name: &str) -> Table {
        Table {
            columns: vec![Column::left("Player"), Column::right("Points")],
            rows: (0..rows)
                .map(|i| vec![format!("{name} {i}"), format!("{}", i * 7)])
                .collect(),
        }
    }

    fn sheet(blocks: Vec<Block>) -> Sheet {
        Sheet {
            title: "Friday drive".into(),
            lines: vec!["Nomination Whist".into()],
            blocks,
            footer: "The Club".into(),
        }
    }

    fn texts(page: &Page) -> Vec<&str> {
        page.runs.iter().map(|r| r.text.as_str()).collect()
    }

    #[test]
    fn numbers_line_up_on_the_right_and_names_on_the_left() {
        let pages = layout(&sheet(vec![Block::Table(table(12, "Ann"))]));
        let lines = texts(&pages[0]);
        assert_eq!(lines[2], "Player  Points");
        assert_eq!(lines[4], "Ann 0        0");
        assert_eq!(lines[15], "Ann 11      77");
    }

    #[test]
    fn a_long_table_repeats_its_header_on_each_page_and_every_page_is_numbered() {
        let pages = layout(&sheet(vec![Block::Table(table(200, "Bob"))]));
        assert!(pages.len() >= 3, "{} pages", pages.len());
        for (n, page) in pages.iter().enumerate() {
            let lines = texts(page);
            assert!(lines.contains(&"Player   Points"), "page {n} has the header");
            assert_eq!(
                lines.last().copied(),
                Some(format!("The Club, page {} of {}", n + 1, pages.len()).as_str())
            );
            for run in &page.runs {
                assert!(
                    run.y > MARGIN && run.y <= PAGE_HEIGHT - MARGIN,
                    "{run:?} inside the margins"
                );
            }
        }
        let rows: usize = pages
            .iter()
            .map(|p| texts(p).iter().filter(|t| t.starts_with("Bob ")).count())
            .sum();
        assert_eq!(rows, 200, "every row printed once");
    }

    #[test]
    fn a_table_too_wide_for_the_page_cuts_its_widest_column() {
        let long = "Bartholomew ".repeat(20);
        let table = Table {
            columns: vec![Column::left("Player"), Column::right("Chips")],
            rows: vec![vec![long.clone(), "-12".into()]],
        };
        let pages = layout(&sheet(vec![Block::Table(table)]));
        let row = texts(&pages[0])[4];
        assert_eq!(row.chars().count(), columns_at(BODY));
        assert!(row.ends_with("…    -12"), "{row}");
    }

    #[test]
    fn a_heading_never_ends_a_page() {
        let mut blocks = vec![Block::Table(table(58, "Cat"))];
        blocks.push(Block::Heading("Round 2".into()));
        blocks.push(Block::Table(table(3, "Dan")));
        let pages = layout(&sheet(blocks));
        for page in &pages {
            let last_text = page.runs.iter().rev().nth(1).map(|r| r.text.as_str());
            assert_ne!(last_text, Some("Round 2"), "the heading is followed on its page");
        }
        assert!(pages.iter().any(|p| texts(p).contains(&"Round 2")));
    }

    #[test]
    fn paragraphs_wrap_at_words() {
        let text = "word ".repeat(60);
        let pages = layout(&sheet(vec![Block::Paragraph(text)]));
        let lines: Vec<&str> = texts(&pages[0]).into_iter().filter(|t| t.starts_with("word")).collect();
        assert!(lines.len() >= 3);
        for line in lines {
            assert!(line.chars().count() <= columns_at(BODY));
            assert!(!line.ends_with(' '));
        }
    }

    #[test]
    fn a_sheet_prints_as_a_pdf_with_its_pages() {
        let bytes = pdf(&sheet(vec![Block::Table(table(200, "Eve"))])).expect("prints");
        assert!(bytes.starts_with(b"%PDF-"));
        let pages = layout(&sheet(vec![Block::Table(table(200, "Eve"))])).len();
        let marked = String::from_utf8_lossy(&bytes).matches("/Type /Page\n").count()
            + String::from_utf8_lossy(&bytes).matches("/Type /Page ").count()
            + String::from_utf8_lossy(&bytes).matches("/Type/Page/").count();
        assert!(
            marked == 0 || marked == pages,
            "{marked} page objects for {pages} pages"
        );
    }
}
