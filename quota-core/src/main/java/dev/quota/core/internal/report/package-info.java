/**
 * What a service tells the outside of its decisions besides their answers: the listeners, told in
 * registration order with a failing one logged and skipped
 * ({@link dev.quota.core.internal.report.Listeners}), and the sampled, fingerprinted log line per
 * rejection ({@link dev.quota.core.internal.report.RejectionLog}). Public only so that
 * {@link dev.quota.core.QuotaService} can wire and call it; nothing here is API, and any of it may
 * change in any release.
 */
@NullMarked
package dev.quota.core.internal.report;

import org.jspecify.annotations.NullMarked;
