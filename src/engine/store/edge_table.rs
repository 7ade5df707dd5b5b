//! The catalog's edges: one vector per snapshot part, each taken over in
//! place as it was decoded (never copied into one large vector beside the
//! parts not moved yet), addressed by one slot number across them.

use crate::model::Edge;

/// Edge slots `0..len`, in parts; an empty slot is a dropped edge.
#[derive(Debug, Clone, Default)]
pub(super) struct EdgeTable {
    parts: Vec<Vec<Option<Edge>>>,
    /// The first slot of each part.
    starts: Vec<usize>,
}

impl EdgeTable {
    /// Appends a part: its edges take the next slots.
    pub(super) fn add_part(&mut self, part: Vec<Option<Edge>>) {
        if part.is_empty() {
            return;
        }
        self.starts.push(self.len());
        self.parts.push(part);
    }

    /// The number of slots.
    pub(super) fn len(&self) -> usize {
        match (self.starts.last(), self.parts.last()) {
            (Some(start), Some(part)) => start + part.len(),
            _ => 0,
        }
    }

    fn locate(&self, slot: usize) -> Option<(usize, usize)> {
        let i = self.starts.partition_point(|&s| s <= slot).checked_sub(1)?;
        let offset = slot - self.starts[i];
        (offset < self.parts[i].len()).then_some((i, offset))
    }

    pub(super) fn get(&self, slot: usize) -> Option<&Edge> {
        let (i, o) = self.locate(slot)?;
        self.parts[i][o].as_ref()
    }

    pub(super) fn slot_mut(&mut self, slot: usize) -> Option<&mut Option<Edge>> {
        let (i, o) = self.locate(slot)?;
        Some(&mut self.parts[i][o])
    }

    /// Adds an edge in the next slot.
    pub(super) fn push(&mut self, e: Edge) {
        match self.parts.last_mut() {
            Some(last) => last.push(Some(e)),
            None => self.add_part(vec![Some(e)]),
        }
    }

    /// Every slot in order.
    pub(super) fn slots(&self) -> impl Iterator<Item = &Option<Edge>> {
        self.parts.iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit;

    #[test]
    fn slots_run_on_across_parts() {
        let sample = testkit::sample();
        let edges: Vec<Edge> = sample.edges().cloned().collect();
        assert!(edges.len() >= 3, "the sample has edges");
        let mut t = EdgeTable::default();
        t.add_part(vec![Some(edges[0].clone())]);
        t.add_part(Vec::new());
        t.add_part(vec![Some(edges[1].clone()), None]);
        t.push(edges[2].clone());
        assert_eq!(t.len(), 4);
        assert_eq!(t.get(0).map(|e| e.id), Some(edges[0].id));
        assert_eq!(t.get(1).map(|e| e.id), Some(edges[1].id));
        assert!(t.get(2).is_none() && t.get(4).is_none());
        assert_eq!(t.get(3).map(|e| e.id), Some(edges[2].id));
        *t.slot_mut(1).expect("slot 1") = None;
        assert_eq!(t.slots().flatten().count(), 2);
    }
}
