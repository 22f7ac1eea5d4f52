package dev.quota.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.QuotaStoreException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class StoreFailuresTest {

    @Test
    void wrap_ofAClientFailure_isAStoreFailureNamingWhatFailedAndWhy() {
        var cause = new IllegalStateException("connection reset");

        QuotaStoreException wrapped = StoreFailures.wrap("cache 'quota' failed on q:alice", cause);

        assertThat(wrapped).hasMessage("cache 'quota' failed on q:alice: java.lang.IllegalStateException: connection reset")
                .hasCause(cause);
        assertThat(wrapped.outage()).isFalse();
        assertThat(wrapped.inDoubt()).isFalse();
    }

    @Test
    void wrap_ofAStoreFailure_keepsItsKind_alsoInsideAFuture() {
        QuotaStoreException inDoubt = QuotaStoreException.inDoubt("script timed out", new RuntimeException());

        assertThat(StoreFailures.wrap("redis failed", inDoubt)).isSameAs(inDoubt);
        assertThat(StoreFailures.wrap("redis failed", new CompletionException(new ExecutionException(inDoubt))))
                .isSameAs(inDoubt);
    }

    @Test
    void wrap_ofAFutureThatFailed_namesTheFailureInsideIt() {
        var refused = new UncheckedIOException(new ConnectException("refused"));

        assertThat(StoreFailures.wrap("redis failed (k)", new CompletionException(refused))).hasCause(refused);
    }

    @Test
    void call_passesABadCallOnAsItIs_andWrapsEverythingElse() {
        assertThatThrownBy(() -> StoreFailures.call("store failed", () -> {
            throw new IllegalArgumentException("bucket k appears twice in one consume");
        })).isExactlyInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StoreFailures.call("store failed", () -> {
            throw new UnsupportedOperationException("read-only replica");
        })).isExactlyInstanceOf(QuotaStoreException.class)
                .hasMessage("store failed: java.lang.UnsupportedOperationException: read-only replica");
        assertThat(StoreFailures.call("store failed", () -> 7)).isEqualTo(7);
    }
}
