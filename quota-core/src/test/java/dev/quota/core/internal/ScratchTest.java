package dev.quota.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class ScratchTest {

    @Test
    void aTakeWhileTheThreadHoldsTheBuffer_throws_namingTheBuffer() {
        Scratch<StringBuilder> scratch = Scratch.perThread("the test's builder", StringBuilder::new);
        StringBuilder taken = scratch.take();

        assertThatThrownBy(scratch::take)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the test's builder is taken again")
                .hasMessageContaining("re-entrant");
        scratch.giveBack(taken);
        assertThat(scratch.take()).isSameAs(taken); // given back: the same buffer again
    }

    @Test
    void eachThreadHasItsOwnBuffer_soATakeOnAnotherThreadIsNoReentry() throws Exception {
        Scratch<StringBuilder> scratch = Scratch.perThread("the test's builder", StringBuilder::new);
        StringBuilder mine = scratch.take();

        StringBuilder theirs = CompletableFuture.supplyAsync(scratch::take).get();

        assertThat(theirs).isNotSameAs(mine);
    }

    @Test
    void aGiveBackOfAnythingButTheThreadsBuffer_changesNothing() {
        Scratch<StringBuilder> scratch = Scratch.perThread("the test's builder", StringBuilder::new);
        StringBuilder taken = scratch.take();

        scratch.giveBack(new StringBuilder());

        assertThat(scratch.taken()).isTrue();
        scratch.giveBack(taken);
        scratch.giveBack(taken); // a second give-back (a finally after the normal path) is harmless
        assertThat(scratch.taken()).isFalse();
    }

    @Test
    void listsOf_aGatherInsideAGather_throws_andTheOuterListStillComesOutWhole() {
        Object[] outer = ListsOf.gather(3);
        outer[0] = "a";
        outer[1] = "b";

        assertThatThrownBy(() -> ListsOf.gather(2)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("re-entrant");
        outer[2] = "c";
        List<String> listed = ListsOf.first(outer, 3);

        assertThat(listed).containsExactly("a", "b", "c");
        assertThat(outer).containsOnlyNulls(); // listed, cleared and given back: free for the next gather
        assertThat(ListsOf.gather(3)).isSameAs(outer);
        ListsOf.giveBack(outer);
    }

    @Test
    void listsOf_moreElementsThanTheBufferHolds_getAnArrayOfTheirOwn_andLeaveTheBufferFree() {
        Object[] big = ListsOf.gather(11);
        Object[] small = ListsOf.gather(2);

        assertThat(big).hasSize(11).isNotSameAs(small);
        ListsOf.giveBack(big);
        ListsOf.giveBack(small);
    }
}
