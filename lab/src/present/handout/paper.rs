//! The paper a handout prints on.

/// The paper a handout prints on: A4 unless asked, as most of the world
/// prints; the check prints each lab on both.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Paper {
    /// ISO A4, 210 x 297 mm.
    #[default]
    A4,
    /// US Letter, 8.5 x 11 in.
    Letter,
}

impl Paper {
    /// Both, the default first.
    pub const ALL: [Paper; 2] = [Paper::A4, Paper::Letter];

    /// Its name on the command line: `a4`, `letter`.
    pub fn name(self) -> &'static str {
        match self {
            Paper::A4 => "a4",
            Paper::Letter => "letter",
        }
    }

    /// The paper `--paper NAME` names.
    pub fn from_name(name: &str) -> Option<Paper> {
        Paper::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Its size as CSS names it.
    fn size(self) -> &'static str {
        match self {
            Paper::A4 => "A4",
            Paper::Letter => "letter",
        }
    }

    /// Its page rule's margins, top and bottom then left and right, in
    /// points (72 an inch): 15 by 14 mm on A4, 0.6 by 0.55 in. on Letter.
    pub fn margins_pt(self) -> (f64, f64) {
        match self {
            Paper::A4 => (15.0 * 72.0 / 25.4, 14.0 * 72.0 / 25.4),
            Paper::Letter => (0.6 * 72.0, 0.55 * 72.0),
        }
    }

    /// Its page rule, which the HTML carries so that a browser's print
    /// and Chromium's PDF use it.
    pub fn css(self) -> String {
        let (vertical, horizontal) = self.margins_pt();
        format!(
            "@page {{ size: {}; margin: {vertical:.2}pt {horizontal:.2}pt; }}",
            self.size()
        )
    }
}

#[cfg(test)]
mod tests;
