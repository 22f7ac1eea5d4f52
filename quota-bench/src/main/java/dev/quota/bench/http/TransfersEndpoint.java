package dev.quota.bench.http;

import dev.quota.jaxrs.AmountLimit;
import dev.quota.jaxrs.Quota;
import dev.quota.jaxrs.QuotaAmount;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.MessageBodyReader;
import jakarta.ws.rs.ext.Provider;
import java.io.IOException;
import java.io.InputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HTTP scenario's layered route: {@code POST /api/v1/transfers/{id}} decided like the demo's
 * transfer, over the plan, the {@code transfers} rule (per customer and shared) and the
 * {@code transfer-amount} limit with the amount the body names, answering a small fixed JSON.
 */
@Path("/api/v1/transfers/{id}")
public final class TransfersEndpoint {

    /** The body the load generator sends: {@code {"currency":"EUR","amountMinor":100}}. */
    public static final String BODY = "{\"currency\":\"EUR\",\"amountMinor\":100}";

    /** A transfer's amount, counted per currency. */
    public record Transfer(String currency, long amountMinor) implements QuotaAmount {
        @Override
        public String quotaQualifier() {
            return currency;
        }

        @Override
        public long quotaAmount() {
            return amountMinor;
        }
    }

    /** The transfer, booked. */
    @POST
    @Quota("transfers")
    @AmountLimit("transfer-amount")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public String transfer(@PathParam("id") String id, Transfer transfer) {
        return "{\"id\":\"" + id + "\",\"currency\":\"" + transfer.currency() + "\",\"status\":\"booked\"}";
    }

    /** Reads {@link #BODY}'s shape without a JSON library, which the bench does not carry. */
    @Provider
    @Consumes(MediaType.APPLICATION_JSON)
    public static final class Reader implements MessageBodyReader<Transfer> {
        private static final Pattern SHAPE =
                Pattern.compile("\\{\"currency\":\"([A-Z]{3})\",\"amountMinor\":(-?\\d{1,18})}");

        @Override
        public boolean isReadable(Class<?> type, Type generic, Annotation[] annotations, MediaType mediaType) {
            return type == Transfer.class;
        }

        @Override
        public Transfer readFrom(Class<Transfer> type, Type generic, Annotation[] annotations, MediaType mediaType,
                                 MultivaluedMap<String, String> headers, InputStream body) throws IOException {
            Matcher m = SHAPE.matcher(new String(body.readNBytes(256), StandardCharsets.UTF_8).strip());
            if (!m.matches()) {
                throw new WebApplicationException(400);
            }
            return new Transfer(m.group(1), Long.parseLong(m.group(2)));
        }
    }
}
