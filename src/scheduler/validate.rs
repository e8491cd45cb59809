//! Validation of Scheduler requests, exactly as AWS reports it (filled in next).
