//! `From` conversions between the generated messages and the protocol's
//! plain Rust types (`foxbase_worker::protocol`), which everything but the
//! gRPC transport uses. A conversion is total: a message with a field out
//! of range for the plain type (none today) would be refused by the
//! transport before it gets here.

use crate::v1;
use foxbase_worker::job::{PliesReport, TierReport};
use foxbase_worker::kernel::{Phases, TierStats};
use foxbase_worker::protocol::Distance;
use foxbase_worker::protocol::{
    Accepted, Assignment, Completion, FileRef, LeaseAnswer, Registration, RunStatus, TableRef, WorkerStatus,
};
use std::time::Duration;

impl From<Registration> for v1::RegisterResponse {
    fn from(r: Registration) -> Self {
        v1::RegisterResponse {
            worker_id: r.worker_id,
            game: r.game,
            variant: r.variant,
            lease_seconds: r.lease_seconds,
            store_url: r.store_url,
            plies: r.distance.is_some(),
            dtz: r.distance == Some(Distance::Dtz),
        }
    }
}

impl From<v1::RegisterResponse> for Registration {
    fn from(r: v1::RegisterResponse) -> Self {
        Registration {
            worker_id: r.worker_id,
            game: r.game,
            variant: r.variant,
            lease_seconds: r.lease_seconds,
            store_url: r.store_url,
            distance: r.plies.then_some(if r.dtz { Distance::Dtz } else { Distance::Dtm }),
        }
    }
}

impl From<TableRef> for v1::TableRef {
    fn from(t: TableRef) -> Self {
        v1::TableRef {
            tier: t.tier,
            file: t.file,
            crc32: t.crc32,
            bytes: t.bytes,
            has_plies: t.plies.is_some(),
            plies_crc32: t.plies.map_or(0, |p| p.crc32),
            plies_bytes: t.plies.map_or(0, |p| p.bytes),
        }
    }
}

impl From<v1::TableRef> for TableRef {
    fn from(t: v1::TableRef) -> Self {
        let plies = t.has_plies.then_some(FileRef { crc32: t.plies_crc32, bytes: t.plies_bytes });
        TableRef { tier: t.tier, file: t.file, crc32: t.crc32, bytes: t.bytes, plies }
    }
}

impl From<Assignment> for v1::Assignment {
    fn from(a: Assignment) -> Self {
        v1::Assignment {
            tier: a.tier,
            lease_id: a.lease_id,
            upload_key: a.upload_key,
            children: a.children.into_iter().map(Into::into).collect(),
        }
    }
}

impl From<v1::Assignment> for Assignment {
    fn from(a: v1::Assignment) -> Self {
        Assignment {
            tier: a.tier,
            lease_id: a.lease_id,
            upload_key: a.upload_key,
            children: a.children.into_iter().map(Into::into).collect(),
        }
    }
}

impl From<LeaseAnswer> for v1::LeaseResponse {
    fn from(a: LeaseAnswer) -> Self {
        match a {
            LeaseAnswer::Assigned(a) => v1::LeaseResponse { assignment: Some(a.into()), ..Default::default() },
            LeaseAnswer::Wait(after) => v1::LeaseResponse {
                retry_after_ms: after.as_millis().min(u32::MAX as u128) as u32,
                ..Default::default()
            },
            LeaseAnswer::Done => v1::LeaseResponse { done: true, ..Default::default() },
        }
    }
}

impl From<v1::LeaseResponse> for LeaseAnswer {
    /// `done` wins over an assignment; no assignment and not done is a wait.
    fn from(r: v1::LeaseResponse) -> Self {
        match (r.done, r.assignment) {
            (true, _) => LeaseAnswer::Done,
            (false, Some(a)) => LeaseAnswer::Assigned(a.into()),
            (false, None) => LeaseAnswer::Wait(Duration::from_millis(r.retry_after_ms as u64)),
        }
    }
}

impl From<Completion> for v1::CompleteRequest {
    fn from(c: Completion) -> Self {
        let r = c.report;
        v1::CompleteRequest {
            worker_id: c.worker_id,
            lease_id: c.lease_id,
            tier: r.tier_name,
            upload_key: c.upload_key,
            crc32: r.crc32,
            bytes: r.bytes,
            slots: r.stats.slots,
            wins: r.stats.wins,
            draws: r.stats.draws,
            losses: r.stats.losses,
            unused: r.stats.unused,
            seconds: r.seconds,
            levels: r.stats.levels,
            decided_at_start: r.stats.decided_at_start,
            load_seconds: r.phases.load,
            init_seconds: r.phases.init,
            propagate_seconds: r.phases.propagate,
            pack_seconds: r.phases.pack,
            write_seconds: r.phases.write,
            has_plies: r.plies.is_some(),
            plies_crc32: r.plies.map_or(0, |p| p.crc32),
            plies_bytes: r.plies.map_or(0, |p| p.bytes),
            longest_plies: r.plies.map_or(0, |p| p.longest),
        }
    }
}

impl From<v1::CompleteRequest> for Completion {
    fn from(c: v1::CompleteRequest) -> Self {
        Completion {
            worker_id: c.worker_id,
            lease_id: c.lease_id,
            upload_key: c.upload_key,
            report: TierReport {
                tier_name: c.tier,
                stats: TierStats {
                    slots: c.slots,
                    wins: c.wins,
                    draws: c.draws,
                    losses: c.losses,
                    unused: c.unused,
                    levels: c.levels,
                    decided_at_start: c.decided_at_start,
                },
                crc32: c.crc32,
                bytes: c.bytes,
                seconds: c.seconds,
                phases: Phases {
                    load: c.load_seconds,
                    init: c.init_seconds,
                    propagate: c.propagate_seconds,
                    pack: c.pack_seconds,
                    write: c.write_seconds,
                },
                plies: c.has_plies.then_some(PliesReport {
                    crc32: c.plies_crc32,
                    bytes: c.plies_bytes,
                    longest: c.longest_plies,
                }),
            },
        }
    }
}

impl From<Accepted> for v1::CompleteResponse {
    fn from(a: Accepted) -> Self {
        v1::CompleteResponse { duplicate: a.duplicate }
    }
}

impl From<v1::CompleteResponse> for Accepted {
    fn from(r: v1::CompleteResponse) -> Self {
        Accepted { duplicate: r.duplicate }
    }
}

impl From<WorkerStatus> for v1::WorkerStatus {
    fn from(w: WorkerStatus) -> Self {
        v1::WorkerStatus {
            worker_id: w.worker_id,
            name: w.name,
            threads: w.threads,
            leased_tiers: w.leased_tiers,
            seconds_since_seen: w.seconds_since_seen,
        }
    }
}

impl From<v1::WorkerStatus> for WorkerStatus {
    fn from(w: v1::WorkerStatus) -> Self {
        WorkerStatus {
            worker_id: w.worker_id,
            name: w.name,
            threads: w.threads,
            leased_tiers: w.leased_tiers,
            seconds_since_seen: w.seconds_since_seen,
        }
    }
}

impl From<RunStatus> for v1::StatusResponse {
    fn from(s: RunStatus) -> Self {
        v1::StatusResponse {
            variant: s.variant,
            tiers_total: s.tiers_total,
            tiers_done: s.tiers_done,
            tiers_running: s.tiers_running,
            tiers_pending: s.tiers_pending,
            slots_total: s.slots_total,
            slots_done: s.slots_done,
            positions_per_second: s.positions_per_second,
            eta_seconds: s.eta_seconds.unwrap_or(-1.0),
            workers: s.workers.into_iter().map(Into::into).collect(),
            tiers_resumed: s.tiers_resumed,
            leases_issued: s.leases_issued,
            leases_expired: s.leases_expired,
            completions_rejected: s.completions_rejected,
            finished: s.finished,
            start_value: s.start_value.unwrap_or_default(),
        }
    }
}

impl From<v1::StatusResponse> for RunStatus {
    fn from(s: v1::StatusResponse) -> Self {
        RunStatus {
            variant: s.variant,
            tiers_total: s.tiers_total,
            tiers_done: s.tiers_done,
            tiers_running: s.tiers_running,
            tiers_pending: s.tiers_pending,
            slots_total: s.slots_total,
            slots_done: s.slots_done,
            positions_per_second: s.positions_per_second,
            eta_seconds: (s.eta_seconds >= 0.0).then_some(s.eta_seconds),
            workers: s.workers.into_iter().map(Into::into).collect(),
            tiers_resumed: s.tiers_resumed,
            leases_issued: s.leases_issued,
            leases_expired: s.leases_expired,
            completions_rejected: s.completions_rejected,
            finished: s.finished,
            start_value: (!s.start_value.is_empty()).then_some(s.start_value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> TierReport {
        TierReport {
            tier_name: "f1-0.0.0.0.3.0.0".into(),
            stats: TierStats { slots: 10, wins: 1, draws: 2, losses: 3, unused: 4, levels: 7, decided_at_start: 5 },
            crc32: 0xdead_beef,
            bytes: 123,
            seconds: 0.5,
            phases: Phases { load: 0.125, init: 0.25, propagate: 0.0625, pack: 0.03125, write: 0.5 },
            plies: Some(PliesReport { crc32: 0xfeed_f00d, bytes: 45, longest: 67 }),
        }
    }

    #[test]
    fn every_plain_type_survives_the_round_trip_through_its_message() {
        let reg = Registration {
            worker_id: "w-1".into(),
            game: "fox".into(),
            variant: "{}".into(),
            lease_seconds: 60,
            store_url: "file:///x".into(),
            distance: Some(Distance::Dtm),
        };
        assert_eq!(Registration::from(v1::RegisterResponse::from(reg.clone())), reg);
        for distance in [None, Some(Distance::Dtz)] {
            let reg = Registration { distance, ..reg.clone() };
            assert_eq!(Registration::from(v1::RegisterResponse::from(reg.clone())), reg);
        }
        let a = Assignment {
            tier: "t".into(),
            lease_id: 7,
            upload_key: "incoming/t.7.fxt".into(),
            children: vec![
                TableRef { tier: "c".into(), file: "tiers/c.fxt".into(), crc32: 9, bytes: 10, plies: None },
                TableRef {
                    tier: "d".into(),
                    file: "tiers/d.fxt".into(),
                    crc32: 11,
                    bytes: 12,
                    plies: Some(FileRef { crc32: 13, bytes: 14 }),
                },
            ],
        };
        for answer in [LeaseAnswer::Assigned(a), LeaseAnswer::Wait(Duration::from_millis(250)), LeaseAnswer::Done] {
            assert_eq!(LeaseAnswer::from(v1::LeaseResponse::from(answer.clone())), answer);
        }
        let c = Completion { worker_id: "w".into(), lease_id: 3, upload_key: "incoming/k".into(), report: report() };
        let back = Completion::from(v1::CompleteRequest::from(c.clone()));
        assert_eq!(
            (back.worker_id, back.lease_id, back.upload_key, back.report),
            (c.worker_id, 3, c.upload_key, c.report)
        );
        assert_eq!(
            Accepted::from(v1::CompleteResponse::from(Accepted { duplicate: true })),
            Accepted { duplicate: true }
        );
        let status = RunStatus {
            variant: "{}".into(),
            tiers_total: 5,
            tiers_done: 2,
            eta_seconds: Some(3.5),
            workers: vec![WorkerStatus {
                worker_id: "w".into(),
                name: "n".into(),
                threads: 2,
                leased_tiers: vec!["t".into()],
                seconds_since_seen: 0.25,
            }],
            start_value: Some("draw".into()),
            ..Default::default()
        };
        assert_eq!(RunStatus::from(v1::StatusResponse::from(status.clone())), status);
        let unknown = RunStatus { eta_seconds: None, start_value: None, ..status };
        assert_eq!(RunStatus::from(v1::StatusResponse::from(unknown.clone())), unknown);
    }
}
