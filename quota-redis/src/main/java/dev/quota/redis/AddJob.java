package dev.quota.redis;

import dev.quota.core.spi.BucketMath;
import dev.quota.core.spi.BucketSpec;
import java.util.List;

/** Gives tokens back to one bucket (a refund). */
final class AddJob extends CasJob {

    private final String key;
    private final BucketSpec spec;
    private final long tokens;

    AddJob(String key, BucketSpec spec, long tokens) {
        this.key = key;
        this.spec = spec;
        this.tokens = tokens;
    }

    @Override
    List<String> keys() {
        return List.of(key);
    }

    @Override
    void compute(CasRound round) {
        Cell cell = round.cell(key);
        cell.write(BucketMath.addTokens(cell.state, spec, tokens, round.now()), round.expiry());
        answer(Boolean.TRUE);
    }
}
