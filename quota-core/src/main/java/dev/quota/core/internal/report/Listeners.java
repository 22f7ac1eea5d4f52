package dev.quota.core.internal.report;

import dev.quota.core.Customer;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaListener;
import dev.quota.core.Settlement;
import dev.quota.core.TokenLeasing;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners of one service, told in registration order. A listener that throws is logged at
 * WARN and skipped; the decision stands.
 */
public final class Listeners implements QuotaListener {

    private static final Logger log = LoggerFactory.getLogger(QuotaListener.class);

    private final List<QuotaListener> listeners;

    /** Tells {@code listeners}, a copy of them, in this order. */
    public Listeners(List<QuotaListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    @Override
    public void onDecision(Customer customer, @Nullable String limits, QuotaDecision decision, Duration elapsed) {
        for (int i = 0; i < listeners.size(); i++) { // indexed: no iterator per decision
            QuotaListener listener = listeners.get(i);
            try {
                listener.onDecision(customer, limits, decision, elapsed);
            } catch (RuntimeException e) {
                failed(listener, "onDecision", e);
            }
        }
    }

    @Override
    public void onFailedKey(QuotaDecision decision) {
        for (QuotaListener listener : listeners) {
            try {
                listener.onFailedKey(decision);
            } catch (RuntimeException e) {
                failed(listener, "onFailedKey", e);
            }
        }
    }

    @Override
    public void onStoreFailure(RuntimeException failure) {
        for (QuotaListener listener : listeners) {
            try {
                listener.onStoreFailure(failure);
            } catch (RuntimeException e) {
                failed(listener, "onStoreFailure", e);
            }
        }
    }

    @Override
    public void onFallback(boolean active) {
        for (QuotaListener listener : listeners) {
            try {
                listener.onFallback(active);
            } catch (RuntimeException e) {
                failed(listener, "onFallback", e);
            }
        }
    }

    @Override
    public void onRelease(QuotaDecision decision) {
        for (QuotaListener listener : listeners) {
            try {
                listener.onRelease(decision);
            } catch (RuntimeException e) {
                failed(listener, "onRelease", e);
            }
        }
    }

    @Override
    public void onReload(boolean applied, long version) {
        for (QuotaListener listener : listeners) {
            try {
                listener.onReload(applied, version);
            } catch (RuntimeException e) {
                failed(listener, "onReload", e);
            }
        }
    }

    @Override
    public void onSettle(Settlement settlement) {
        for (QuotaListener listener : listeners) {
            try {
                listener.onSettle(settlement);
            } catch (RuntimeException e) {
                failed(listener, "onSettle", e);
            }
        }
    }

    @Override
    public void onLeasedTokens(TokenLeasing.Event event, String policy, long tokens) {
        for (QuotaListener listener : listeners) {
            try {
                listener.onLeasedTokens(event, policy, tokens);
            } catch (RuntimeException e) {
                failed(listener, "onLeasedTokens", e);
            }
        }
    }

    private static void failed(QuotaListener listener, String method, RuntimeException e) {
        log.warn("quota listener {}.{} failed; ignored", listener.getClass().getName(), method, e);
    }
}
