//! An index from 32-byte keys (SHA-256s) to positions in a list its owner keeps: a
//! [`hashbrown::HashTable`] of `u32` positions, the keys themselves read from the owner's list
//! when compared or rehashed. 4 bytes a bucket instead of the 40 of a `HashMap<[u8; 32], usize>`
//! that copied every key (docs/log/2026-12-01-compact-graph.md: spring-framework's 143k keys,
//! ~10 MiB less per such map).
//!
//! Every call takes `key_of`, the owner's lookup from a position to its key. The owner keeps the
//! invariant that `key_of(pos)` is the key a position was inserted under, for as long as the
//! position is in the table (push the key to the list before inserting its position; rebuild the
//! table when the list is reordered).

use hashbrown::HashTable;
use hashbrown::hash_table::Entry;

/// The table: a set of positions, found by the key at each.
#[derive(Debug, Clone, Default)]
pub struct KeyTable(HashTable<u32>);

/// The bucket hash of a key: its first eight bytes (a SHA-256 is uniformly distributed).
fn hash(key: &[u8; 32]) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&key[..8]);
    u64::from_le_bytes(b)
}

impl KeyTable {
    /// The position held for `key`.
    pub fn get<'a>(&self, key: &[u8; 32], key_of: impl Fn(u32) -> &'a [u8; 32]) -> Option<u32> {
        self.0.find(hash(key), |&p| key_of(p) == key).copied()
    }

    /// Whether `key` has a position.
    pub fn contains<'a>(&self, key: &[u8; 32], key_of: impl Fn(u32) -> &'a [u8; 32]) -> bool {
        self.get(key, key_of).is_some()
    }

    /// Holds `pos` for `key` (`key_of(pos)` must be `key`) unless `key` has a position already;
    /// whether it was added.
    pub fn insert<'a>(
        &mut self,
        key: &[u8; 32],
        pos: u32,
        key_of: impl Fn(u32) -> &'a [u8; 32],
    ) -> bool {
        debug_assert_eq!(key_of(pos), key);
        match self
            .0
            .entry(hash(key), |&p| key_of(p) == key, |&p| hash(key_of(p)))
        {
            Entry::Occupied(_) => false,
            Entry::Vacant(v) => {
                v.insert(pos);
                true
            }
        }
    }

    /// Drops `key`'s position; the position it had.
    pub fn remove<'a>(
        &mut self,
        key: &[u8; 32],
        key_of: impl Fn(u32) -> &'a [u8; 32],
    ) -> Option<u32> {
        match self.0.find_entry(hash(key), |&p| key_of(p) == key) {
            Ok(e) => Some(e.remove().0),
            Err(_) => None,
        }
    }

    /// Positions held, in no order.
    pub fn positions(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().copied()
    }

    /// Keys held.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.0.len()
    }

    /// Drops every position.
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// A table of `key_of(i)` → `i` for every `i` below `n`, the first position of a repeated
    /// key.
    pub fn of<'a>(n: usize, key_of: impl Fn(u32) -> &'a [u8; 32]) -> Self {
        let mut t = Self(HashTable::with_capacity(n));
        for i in 0..n as u32 {
            t.insert(key_of(i), i, &key_of);
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u32) -> [u8; 32] {
        let mut k = [0u8; 32];
        k[28..].copy_from_slice(&n.to_le_bytes());
        // Equal first eight bytes for every key: lookups must compare whole keys.
        k
    }

    #[test]
    fn finds_by_whole_key_through_rehashes_and_removals() {
        let mut keys: Vec<[u8; 32]> = Vec::new();
        let mut t = KeyTable::default();
        for n in 0..300 {
            keys.push(key(n));
            assert!(t.insert(&key(n), n, |p| &keys[p as usize]));
        }
        keys.push(key(5));
        assert!(
            !t.insert(&key(5), 300, |p| &keys[p as usize]),
            "held already"
        );
        assert_eq!(t.len(), 300);
        assert_eq!(t.get(&key(5), |p| &keys[p as usize]), Some(5));
        assert_eq!(t.remove(&key(7), |p| &keys[p as usize]), Some(7));
        assert_eq!(t.get(&key(7), |p| &keys[p as usize]), None);
        assert!(!t.contains(&key(999), |p| &keys[p as usize]));
        let mut all: Vec<u32> = t.positions().collect();
        all.sort_unstable();
        assert_eq!(all.len(), 299);
        assert!(!all.contains(&7));
        let rebuilt = KeyTable::of(keys.len(), |p| &keys[p as usize]);
        assert_eq!(rebuilt.len(), 300);
        assert_eq!(rebuilt.get(&key(5), |p| &keys[p as usize]), Some(5));
        assert_eq!(rebuilt.get(&key(7), |p| &keys[p as usize]), Some(7));
    }
}
