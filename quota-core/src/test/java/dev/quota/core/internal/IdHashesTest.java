package dev.quota.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class IdHashesTest {

    @Test
    void of_computesEachIdOnce() {
        AtomicInteger computed = new AtomicInteger();
        IdHashes hashes = new IdHashes(id -> {
            computed.incrementAndGet();
            return Keys.hash(id);
        }, 10);

        for (int i = 0; i < 5; i++) {
            assertThat(hashes.of("customer-1")).isEqualTo(Keys.hash("customer-1"));
        }

        assertThat(computed).hasValue(1);
    }

    @Test
    void of_pastTheBound_startsOverAndStaysCorrect() {
        AtomicInteger computed = new AtomicInteger();
        IdHashes hashes = new IdHashes(id -> {
            computed.incrementAndGet();
            return Keys.hash(id);
        }, 3);

        for (int i = 0; i < 10; i++) {
            assertThat(hashes.of("c" + i)).isEqualTo(Keys.hash("c" + i));
        }
        assertThat(hashes.of("c9")).isEqualTo(Keys.hash("c9"));

        assertThat(computed).hasValue(10);
    }

    @Test
    void keys_planAndRule_useTheSameHashAsBefore() {
        Keys keys = new Keys("quota");

        assertThat(keys.plan("alice")).isEqualTo("quota:p:" + Keys.hash("alice"));
        assertThat(keys.rule("transfers", "alice")).isEqualTo("quota:r:transfers:" + Keys.hash("alice"));
    }
}
