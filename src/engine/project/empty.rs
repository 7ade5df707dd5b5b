//! Why a projection holds no item: everything matched is inactive, or
//! everything was cut by the budget (a query that matches nothing says so
//! through [`crate::query::nothing_matches`]).

/// Why a projection whose candidates were `candidates` (visible ones
/// `visible`) holds no item under `budget`.
pub fn nothing_projected(candidates: usize, visible: usize, budget: usize) -> String {
    if visible == 0 {
        format!(
            "every node matched ({candidates}) is deprecated, archived or proposed; agents receive active nodes only"
        )
    } else {
        format!("everything matched ({visible} item(s)) was cut by the budget of {budget} tokens")
    }
}
