package dev.quota.jaxrs;

import dev.quota.core.Customer;
import dev.quota.core.QuotaService;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.util.List;

/** {@link CallerResolver#apiKey()}: the key header, checked for shape before it is hashed. */
final class ApiKeyResolver implements CallerResolver {

    static final ApiKeyResolver INSTANCE = new ApiKeyResolver();

    /** Longer keys are not looked up: nobody issues them, and hashing them costs the server. */
    static final int MAX_KEY_LENGTH = 256;

    private ApiKeyResolver() {
    }

    @Override
    public Caller resolve(ContainerRequestContext request, QuotaService service, ClientAddress clientAddress) {
        String header = service.config().identity().header();
        List<String> values = request.getHeaders().get(header);
        if (values == null || values.isEmpty()) {
            return Anonymous.caller(request, service, clientAddress);
        }
        if (values.size() > 1) {
            // Two keys: which one to count is ambiguous, and picking either invites confusion attacks.
            return Caller.badKey();
        }
        String key = values.get(0);
        if (key == null || key.isEmpty()) {
            return Anonymous.caller(request, service, clientAddress);
        }
        if (!wellFormed(key)) {
            return Caller.unknownKey();
        }
        Customer customer = service.customerForApiKey(key);
        return customer == null ? Caller.unknownKey() : Caller.identified(customer);
    }

    /** At most 256 characters, all visible ASCII (0x21-0x7E): no spaces, controls or non-ASCII. */
    static boolean wellFormed(String key) {
        if (key.length() > MAX_KEY_LENGTH) {
            return false;
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < 0x21 || c > 0x7E) {
                return false;
            }
        }
        return true;
    }
}
