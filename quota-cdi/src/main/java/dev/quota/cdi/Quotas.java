package dev.quota.cdi;

import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaListener;
import dev.quota.core.QuotaService;
import dev.quota.core.QuotaStack;
import dev.quota.core.spi.CustomerDirectory;
import dev.quota.jaxrs.CallerResolver;
import dev.quota.jaxrs.ClientAddress;
import dev.quota.jaxrs.admin.AdminTokens;
import dev.quota.jaxrs.admin.QuotaAdminResource;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running quota parts of one application: the service, its store's companions, the plans
 * file's reloader, and how callers are identified. Closed when the application stops.
 */
final class Quotas implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Quotas.class);

    private final QuotaSettings settings;
    private final QuotaStack stack;
    private final QuotaService service;
    private final CallerResolver callerResolver;
    private final String customers;
    private final String summary;
    private final QuotaAdminResource adminResource;
    private final @Nullable Telemetry telemetry;

    private Quotas(QuotaSettings settings, QuotaStack stack, CallerResolver callerResolver, String customers,
                   String summary, @Nullable Telemetry telemetry) {
        this.settings = settings;
        this.telemetry = telemetry;
        this.stack = stack;
        this.service = stack.service();
        this.callerResolver = callerResolver;
        this.customers = customers;
        this.summary = summary;
        QuotaSettings.AdminToken token = settings.adminToken();
        // Without a token the admin API is off, but a runtime that scans WEB-INF/lib still finds its
        // class: it gets a token that is never shown, so that every call is answered 401.
        this.adminResource = QuotaAdminResource.builder(service, token != null ? token.token() : AdminTokens.generate())
                .clientAddress(ClientAddress.peer())
                .build();
    }

    /**
     * Loads the plans file, builds the store and the service, and starts watching the plans file.
     * On failure whatever was started is closed again.
     *
     * @param loader the application's class loader, for a {@code classpath:} plans file
     * @throws InvalidSettingsException naming the setting that is wrong (the plans file included)
     */
    static Quotas start(QuotaSettings settings, ClassLoader loader, AppBeans beans) {
        QuotaConfig config = PlansFile.load(settings, loader);
        CallerResolver caller = callerResolver(settings.caller());
        CustomerDirectory directory = beans.customers();
        List<QuotaListener> listeners = new ArrayList<>(beans.listeners());
        Telemetry telemetry = Telemetry.detect(beans, listeners);
        if (telemetry != null) {
            listeners.add(telemetry);
        }
        Stores.Built store = Stores.build(settings, beans);
        QuotaStack.Builder stack = store.stack().service(builder -> {
            builder.config(config).keyPrefix(settings.keyPrefix());
            if (directory != null) {
                builder.customers(CustomerDirectory.cached(directory, settings.customersTtl(),
                        settings.customersMaxEntries()));
            }
            listeners.forEach(builder::listener);
        });
        if (settings.plansOnDisk() && !settings.reloadInterval().isZero()) {
            stack.watch(Path.of(settings.plans()), settings.reloadInterval());
        }
        QuotaStack built;
        try {
            built = stack.build();
        } catch (RuntimeException e) {
            if (telemetry != null) {
                telemetry.close();
            }
            throw e;
        }
        QuotaService service = built.service();
        if (telemetry != null) {
            telemetry.observe(service);
        }
        String customers = directory == null ? "the plans file" : "the application's " + directory
                + " (answers kept " + settings.customersTtl() + ")";
        String summary = String.format("plans %s (version %d, %d plans%s), store %s, customers from %s, callers by %s,"
                + " admin API %s%s", settings.plans(), service.config().version(), service.config().plans().size(),
                settings.plansOnDisk() && !settings.reloadInterval().isZero()
                        ? ", checked for edits every " + settings.reloadInterval().toMillis() + " ms" : "",
                built.store().describe(), customers, String.join(" then ", settings.caller()),
                settings.adminToken() == null ? "off" : "at /admin (" + settings.adminToken() + ")",
                telemetry == null ? "" : ", metrics and span attributes to " + telemetry.describe());
        // "on" is said by QuotaProviders once the Jakarta REST application has taken the filters
        log.info("quota: service built: {}; not enforced until the Jakarta REST application registers"
                + " QuotaProviders or a QuotaFeature over this service", summary);
        return new Quotas(settings, built, caller, customers, summary, telemetry);
    }

    QuotaService service() {
        return service;
    }

    QuotaSettings settings() {
        return settings;
    }

    CallerResolver callerResolver() {
        return callerResolver;
    }

    /** What was built (plans, store, customers, callers, admin API), for the log. */
    String summary() {
        return summary;
    }

    /** Where customers come from, for the log. */
    String customers() {
        return customers;
    }

    /** The admin API's token, or null when it is off. */
    @Nullable String adminToken() {
        QuotaSettings.AdminToken token = settings.adminToken();
        return token == null ? null : token.token();
    }

    /**
     * The admin API: the one instance, so that its throttling of wrong tokens holds across
     * requests; with every call answered 401 when the admin API is off.
     */
    QuotaAdminResource adminResource() {
        return adminResource;
    }

    /** Stops watching the plans file and the store's companions, then closes the service and its store. */
    @Override
    public void close() {
        stack.close();
        if (telemetry != null) {
            telemetry.close();
        }
        log.info("quota: service closed");
    }

    private static CallerResolver callerResolver(List<String> kinds) {
        CallerResolver[] resolvers = kinds.stream()
                .map(kind -> kind.equals("principal") ? CallerResolver.principal() : CallerResolver.apiKey())
                .toArray(CallerResolver[]::new);
        return resolvers.length == 1 ? resolvers[0] : CallerResolver.firstOf(resolvers);
    }
}
