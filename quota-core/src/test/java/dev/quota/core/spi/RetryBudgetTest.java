package dev.quota.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.QuotaStoreException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RetryBudgetTest {

    @Test
    void checkWithinBudget_buildsNoMessage_andPastItNamesWhatWasChanged() {
        AtomicInteger built = new AtomicInteger();

        RetryBudget.check(3, 3, () -> "redis keys [k" + built.incrementAndGet() + "]");
        assertThat(built).hasValue(0);

        assertThatThrownBy(() -> RetryBudget.check(4, 3, () -> "redis keys [k" + built.incrementAndGet() + "]"))
                .isInstanceOf(QuotaStoreException.class)
                .hasMessage("redis keys [k1]: lost 4 compare-and-swap races, past the retry budget of 3 lost races:"
                        + " written elsewhere all the time");
        assertThatThrownBy(() -> RetryBudget.check(4, 3, "entry k in cache 'quota'"))
                .hasMessageStartingWith("entry k in cache 'quota': lost 4 compare-and-swap races");
    }
}
