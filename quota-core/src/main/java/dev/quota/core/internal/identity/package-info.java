/**
 * Who a request comes from: {@link dev.quota.core.internal.identity.CallerIdentifier} finds the
 * customer an API key or principal names (the config's customers by default,
 * {@link dev.quota.core.internal.identity.ConfigCustomers}), or counts the caller by address;
 * {@link dev.quota.core.internal.identity.Exemption} answers whether it is exempt; and
 * {@link dev.quota.core.internal.identity.FailedKeyGuard} counts key guessing per address and
 * blocks it, remembering which keys worked from where. The failed-key counts themselves are buckets
 * of the decision engine in {@code dev.quota.core}, asked through
 * {@link dev.quota.core.internal.identity.FailedKeyCounts}. Public only so that
 * {@link dev.quota.core.QuotaService} can wire and call it; nothing here is API, and any of it may
 * change in any release.
 */
@NullMarked
package dev.quota.core.internal.identity;

import org.jspecify.annotations.NullMarked;
