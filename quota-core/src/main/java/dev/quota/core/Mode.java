package dev.quota.core;

/**
 * Whether a limit's rejections take effect. Set for the whole config ({@code mode:}, default
 * {@link #ENFORCE}) and optionally per plan or rule, which then overrides the global mode.
 *
 * <p>Shadow mode is for rolling out a new limit safely: put a rule in shadow for a week, watch the
 * {@link QuotaDecision.Outcome#SHADOW_REJECTED} decisions (metrics, the rejection log, the HTTP
 * layer's "would have been rejected" header), then switch it to enforce by editing the file.
 */
public enum Mode {
    /** A limit that lacks tokens rejects the request. */
    ENFORCE,
    /**
     * A limit that lacks tokens lets the request through as
     * {@link QuotaDecision.Outcome#SHADOW_REJECTED}, naming the limit and the retry-after it would
     * have had; the tokens taken from other shadow buckets for the request are given back.
     */
    SHADOW
}
