package dev.quota.jaxrs.internal;

import dev.quota.core.QuotaService;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.Supplier;

/**
 * Providers that every {@link dev.quota.jaxrs.QuotaFeature} built over a given service registers
 * beside its own filters, whoever built the feature: quota-cdi leaves here the filter that hands
 * each request to its request-scoped view, so that an application which registers its own
 * {@code QuotaFeature} over quota-cdi's service is known to be enforcing, exactly as one that
 * registers {@code QuotaProviders}.
 *
 * <p>Keyed by the service's identity and held weakly: a closed service that nobody references any
 * more takes its companions with it. Thread-safe; read once per {@code configure}, never per
 * request. Nothing here is API.
 */
public final class ServiceCompanions {

    /** A provider and the priority it is registered at. */
    public record Companion(Supplier<Object> provider, int priority) {
    }

    private static final Map<QuotaService, List<Companion>> companions =
            Collections.synchronizedMap(new WeakHashMap<>());

    private ServiceCompanions() {
    }

    /** Has every feature over {@code service} register what {@code provider} makes, at {@code priority}. */
    public static void add(QuotaService service, Supplier<Object> provider, int priority) {
        synchronized (companions) {
            companions.computeIfAbsent(service, s -> new ArrayList<>()).add(new Companion(provider, priority));
        }
    }

    /** The companions of {@code service}, in the order they were added; none for a service nobody gave any. */
    public static List<Companion> of(QuotaService service) {
        synchronized (companions) {
            List<Companion> list = companions.get(service);
            return list == null ? List.of() : List.copyOf(list);
        }
    }
}
