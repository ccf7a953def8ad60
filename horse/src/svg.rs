//! A picture of a map with its walls and the enclosed region, as SVG.

use crate::map::{Map, Tile};
use std::fmt::Write;

const CELL: usize = 20;

/// The SVG text: tiles as squares, the region tinted, walls as brown blocks,
/// the horse, fruit, bees and portals as marks with their letters.
pub fn render(map: &Map, walls: &[usize], region: &[usize]) -> String {
    let (width, height) = (map.cols() * CELL, map.rows() * CELL);
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12" text-anchor="middle">"#
    );
    let mut in_region = vec![false; map.len()];
    for &i in region {
        in_region[i] = true;
    }
    for (i, &inside) in in_region.iter().enumerate() {
        let (r, c) = map.position(i);
        let (x, y) = (c * CELL, r * CELL);
        let fill = match map.tile(i) {
            Tile::Water => "#4a90d9",
            Tile::Rock => "#7d7d7d",
            _ if walls.contains(&i) => "#8b5a2b",
            _ if inside => "#f3e37c",
            _ => "#7cbf5a",
        };
        let _ = writeln!(
            out,
            r##"<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{fill}" stroke="#00000022"/>"##
        );
        let (cx, cy) = (x + CELL / 2, y + CELL / 2);
        let mark = match map.tile(i) {
            Tile::Horse => Some(("#5b3a1a", "H".to_string())),
            Tile::Cherry => Some(("#c0162c", "C".to_string())),
            Tile::Apple => Some(("#d4a017", "A".to_string())),
            Tile::Bees => Some(("#222222", "B".to_string())),
            Tile::Portal(d) => Some(("#7b3fa0", d.to_string())),
            _ => None,
        };
        if let Some((colour, letter)) = mark {
            let _ = writeln!(out, r#"<circle cx="{cx}" cy="{cy}" r="7" fill="{colour}"/>"#);
            let _ = writeln!(out, r#"<text x="{cx}" y="{}" fill="white">{letter}</text>"#, cy + 4);
        }
    }
    out.push_str("</svg>\n");
    out
}
