package dev.quota.bench.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class TransfersEndpointTest {

    private final TransfersEndpoint.Reader reader = new TransfersEndpoint.Reader();

    @Test
    void theLoadGeneratorsBody_isReadAsItsAmountPerCurrency() throws IOException {
        TransfersEndpoint.Transfer transfer = read(TransfersEndpoint.BODY);

        assertThat(transfer.quotaQualifier()).isEqualTo("EUR");
        assertThat(transfer.quotaAmount()).isEqualTo(100);
    }

    @Test
    void anotherShape_isA400() {
        assertThatThrownBy(() -> read("{\"amountMinor\":100,\"currency\":\"EUR\"}"))
                .isInstanceOf(WebApplicationException.class)
                .satisfies(e -> assertThat(((WebApplicationException) e).getResponse().getStatus()).isEqualTo(400));
    }

    private TransfersEndpoint.Transfer read(String body) throws IOException {
        return reader.readFrom(TransfersEndpoint.Transfer.class, TransfersEndpoint.Transfer.class, null,
                MediaType.APPLICATION_JSON_TYPE, null, new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)));
    }
}
