package dev.quota.redis.internal.engine;

import dev.quota.core.spi.Adjustment;
import dev.quota.core.spi.BucketMath;
import java.util.ArrayList;
import java.util.List;

/**
 * Changes buckets of one hash slot after the fact, in one script: tokens given back (a refund, a
 * settle below its estimate) or taken regardless (a settle above it, which may leave a debt).
 */
final class AddJob extends CasJob {

    private final List<Adjustment> adjustments;
    private final List<String> keys;

    AddJob(List<Adjustment> adjustments) {
        this.adjustments = adjustments;
        this.keys = new ArrayList<>(adjustments.size());
        for (Adjustment adjustment : adjustments) {
            keys.add(adjustment.key().value());
        }
    }

    @Override
    List<String> keys() {
        return keys;
    }

    @Override
    void compute(CasRound round) {
        for (Adjustment adjustment : adjustments) {
            Cell cell = round.cell(adjustment.key().value());
            cell.write(BucketMath.adjust(cell.state, adjustment, round.now()), round.expiry());
        }
        answer(true);
    }
}
