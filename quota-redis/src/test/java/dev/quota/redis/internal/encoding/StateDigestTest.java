package dev.quota.redis.internal.encoding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StateDigestTest {

    @Test
    void aTakeOfTheStateBufferWhileTheThreadHoldsIt_throws_andAfterTheGiveBackItIsTheSameBuffer() {
        StateDigest.StateBuffer taken = StateDigest.takeBuffer();
        try {
            assertThatThrownBy(StateDigest::takeBuffer)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("a stored state's scratch bytes is taken again")
                    .hasMessageContaining("re-entrant");
        } finally {
            StateDigest.giveBack(taken);
        }
        StateDigest.StateBuffer again = StateDigest.takeBuffer();
        try {
            assertThat(again).isSameAs(taken);
        } finally {
            StateDigest.giveBack(again);
        }
    }

    @Test
    void room_growsToWhatIsAsked_andKeepsTheLargerArray() {
        StateDigest.StateBuffer buffer = StateDigest.takeBuffer();
        try {
            byte[] large = buffer.room(1000);

            assertThat(large.length).isGreaterThanOrEqualTo(1000);
            assertThat(buffer.room(10)).isSameAs(large);
        } finally {
            StateDigest.giveBack(buffer);
        }
    }
}
