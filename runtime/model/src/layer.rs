//! Which kind of layer a directory of rules is.

/// Which kind of layer a directory of rules is; the order is the priority order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LayerKind {
    /// Rules embedded in the binary.
    Package,
    /// `<bundle>/.claude/conditions/`.
    Bundle,
    /// `<profile>/.claude/conditions/`, one per profile of the chain.
    Profile,
    /// `$HOOKDEX_HOME/conditions/`.
    Runtime,
    /// The repository's own rules; runs only when the repository is trusted.
    Directory,
    /// `$HOOKDEX_MANAGED_DIR/conditions/`; nothing overrides or disables it.
    Managed,
}

impl LayerKind {
    const ALL: [LayerKind; 6] = [
        LayerKind::Package,
        LayerKind::Bundle,
        LayerKind::Profile,
        LayerKind::Runtime,
        LayerKind::Directory,
        LayerKind::Managed,
    ];

    /// The stable code stored in the index.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The kind stored under `code`.
    pub fn from_code(code: u8) -> Option<LayerKind> {
        LayerKind::ALL.get(usize::from(code)).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for code in 0..6 {
            assert_eq!(LayerKind::from_code(code).unwrap().code(), code);
        }
        assert_eq!(LayerKind::from_code(6), None);
    }
}
