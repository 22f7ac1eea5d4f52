package dev.quota.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LeaseBenchTest {

    @Test
    void takingAndGivingBackALease_costAtMostOneScriptEach() throws Exception {
        try (RedisUnderTest redis = RedisUnderTest.start()) {
            LeaseBench.Result result = LeaseBench.run(redis, 4, 100, Duration.ofMillis(500));

            assertThat(result.leases()).isPositive();
            assertThat(result.scriptsPerLease()).isGreaterThan(0).isLessThanOrEqualTo(2.0);
            assertThat(result.takeP50Micros()).isPositive();
            assertThat(result.releaseP50Micros()).isPositive();
        }
    }
}
