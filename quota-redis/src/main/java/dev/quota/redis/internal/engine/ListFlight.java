package dev.quota.redis.internal.engine;

import java.util.List;

/**
 * A flight that keeps its keys and jobs in lists of its own: the reads a round needs first
 * ({@link ReadFlight}) and the repairs of unreadable keys ({@link RepairFlight}), both rare next to
 * the scripts ({@link ScriptFlight}), which read theirs through their cells.
 */
abstract class ListFlight extends Flight {

    final List<String> keys;
    final List<CasJob> jobs;

    ListFlight(List<String> keys, List<CasJob> jobs) {
        this.keys = keys;
        this.jobs = jobs;
    }

    @Override
    final int keyCount() {
        return keys.size();
    }

    @Override
    final String key(int i) {
        return keys.get(i);
    }

    @Override
    final int jobCount() {
        return jobs.size();
    }

    @Override
    final CasJob job(int i) {
        return jobs.get(i);
    }
}
