package dev.quota.jaxrs.admin;

import dev.quota.jaxrs.QuotaFeature;
import dev.quota.jaxrs.internal.ResourceChecks;
import jakarta.ws.rs.container.ContainerRequestContext;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin token check of each {@link QuotaAdminResource} method, which the quota filter (the one
 * {@link QuotaFeature} registers, at {@link #PRIORITY}) hands the method's requests to, through
 * {@link ResourceChecks}: after the filters that find the client's address and after the
 * application's authentication, whose security context the admitted call's replaces; before the
 * method. Finds the admin resource the request matched and lets its {@link AdminGuard} answer the
 * call or let it through. A filter is handed the request on every Jakarta REST runtime, which a
 * resource method is not (RESTEasy injects no {@link ContainerRequestContext} there).
 */
final class AdminFilter implements ResourceChecks.Check {

    /**
     * {@link QuotaFeature#PRIORITY}, {@code Priorities.AUTHENTICATION + 100}: the admin token is the
     * admin API's authentication, and it comes after the application's, so that no authentication
     * filter of the application replaces the security context it hands the admitted call on in.
     */
    static final int PRIORITY = QuotaFeature.PRIORITY;

    private static final Logger log = LoggerFactory.getLogger(QuotaAdminResource.class);

    /** The audit's name for the calls of the method this filter is on. */
    private final String action;

    AdminFilter(String action) {
        this.action = action;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        try {
            QuotaAdminResource admin = matched(request);
            if (admin == null) {
                log.error("admin API: {} matched no QuotaAdminResource instance, so it is answered 503", action);
                request.abortWith(AdminGuard.checkFailed());
                return;
            }
            AdminGuard guard = admin.guard();
            if (guard == null) {
                // an admin API that is off, which a runtime constructed from its class
                request.abortWith(QuotaAdminResource.off());
                return;
            }
            guard.admit(action, request);
        } catch (RuntimeException e) {
            // never a raw 500, and never through unchecked
            log.error("admin API: checking the token of {} failed; answering 503", action, e);
            request.abortWith(AdminGuard.checkFailed());
        }
    }

    /** The instance the application registered, as the runtime matched it for this request. */
    private static @Nullable QuotaAdminResource matched(ContainerRequestContext request) {
        for (Object resource : request.getUriInfo().getMatchedResources()) {
            if (resource instanceof QuotaAdminResource admin) {
                return admin;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return "AdminFilter[" + action + "]";
    }
}
