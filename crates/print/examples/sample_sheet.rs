//! Writes a sample results sheet to the file named on the command line, to look at the layout:
//! `cargo run -p tablekeeper-print --example sample_sheet -- /tmp/sheet.pdf`.

use tablekeeper_print::{pdf, Block, Column, Sheet, Table};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args().nth(1).ok_or("usage: sample_sheet FILE.pdf")?;
    let names = [
        "Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lou",
    ];
    let standings = Table {
        columns: vec![
            Column::right("Place"),
            Column::left("Player"),
            Column::right("Points"),
            Column::right("Rounds won"),
        ],
        rows: names
            .iter()
            .zip(0_usize..)
            .map(|(name, i)| {
                vec![
                    format!("{}", i + 1),
                    format!("{name} Bartholomew-Smith"),
                    format!("{}", 90 - 3 * i),
                    format!("{}", 3 - i / 4),
                ]
            })
            .collect(),
    };
    let mut blocks = vec![Block::Heading("Standings".into()), Block::Table(standings)];
    for round in 1..=3 {
        blocks.push(Block::Heading(format!("Round {round}")));
        blocks.push(Block::Table(Table {
            columns: vec![
                Column::right("Table"),
                Column::left("Players (seat order)"),
                Column::right("Scores"),
            ],
            rows: (1..=3)
                .map(|table| {
                    vec![
                        format!("{table}"),
                        "Ann, Bob, Cat, Dan".into(),
                        "21 · 14 · 9 · 3".into(),
                    ]
                })
                .collect(),
        }));
    }
    blocks.push(Block::Paragraph(
        "Table 3 of round 2 did not finish its deals: scored as played (4 of 6 deals, 9♦ held by Cat).".into(),
    ));
    let sheet = Sheet {
        title: "Friday whist drive — results".into(),
        lines: vec![
            "The Crown Card Club · 4 December 2026".into(),
            "Nomination Whist, progressive, 3 rounds of 6 deals".into(),
        ],
        blocks,
        footer: "tablekeeper".into(),
    };
    std::fs::write(out, pdf(&sheet)?)?;
    Ok(())
}
