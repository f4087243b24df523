// The object API's calls below Rdma's marshalling (the data path, libc's
// poll) and its scratch memory.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.InteropServices;
using System.Threading;

namespace RdmaVerbs
{
    /// <summary>What the object API calls below Rdma's marshalling: the data
    /// path at RDMAVERBS_1.3 with the address of work requests laid out here
    /// (at the offsets of Api.cs's structs, checked against the system
    /// headers), libc's poll for the channels' file descriptors.</summary>
    static class Calls
    {
        // Non-default versions (RDMAVERBS_1.3), which a DllImport's look-up
        // by name does not find: bound with dlvsym, each once (they return
        // an errno value: nothing to read after them).
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        delegate int Post(IntPtr queue, IntPtr wr, out IntPtr bad);

        static Post post_send, post_recv, post_srq_recv;

        internal static int PostSend(IntPtr qp, IntPtr wr, out IntPtr bad)
        {
            if (post_send == null)
                post_send = Native.Bind<Post>("ibv_post_send", "RDMAVERBS_1.3");
            return post_send(qp, wr, out bad);
        }

        internal static int PostRecv(IntPtr qp, IntPtr wr, out IntPtr bad)
        {
            if (post_recv == null)
                post_recv = Native.Bind<Post>("ibv_post_recv", "RDMAVERBS_1.3");
            return post_recv(qp, wr, out bad);
        }

        internal static int PostSrqRecv(IntPtr srq, IntPtr wr, out IntPtr bad)
        {
            if (post_srq_recv == null)
                post_srq_recv = Native.Bind<Post>("ibv_post_srq_recv", "RDMAVERBS_1.3");
            return post_srq_recv(srq, wr, out bad);
        }

        [StructLayout(LayoutKind.Sequential)]
        struct PollFd
        {
            public int fd;
            public short events, revents;
        }

        const int POLLIN = 1, EINTR = 4;

        [DllImport("libc.so.6", SetLastError = true)]
        static extern int poll([In, Out] PollFd[] fds, ulong nfds, int timeout);
        [DllImport("libc.so.6", SetLastError = true)]
        static extern int eventfd(uint initval, int flags);
        [DllImport("libc.so.6", SetLastError = true)]
        static extern long read(int fd, ref ulong buf, ulong count);
        [DllImport("libc.so.6", SetLastError = true)]
        static extern long write(int fd, ref ulong buf, ulong count);
        [DllImport("libc.so.6", SetLastError = true)]
        static extern int close(int fd);

        const int EFD_NONBLOCK = 0x800, EFD_CLOEXEC = 0x80000;   // O_NONBLOCK, O_CLOEXEC

        /// <summary>A new eventfd (non-blocking): a channel's wake descriptor.</summary>
        internal static int EventFd()
        {
            int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
            if (fd < 0)
                throw new RdmaVerbsException("eventfd", Marshal.GetLastWin32Error());
            return fd;
        }

        /// <summary>Makes an eventfd readable (adds 1).</summary>
        internal static void Signal(int efd)
        {
            ulong one = 1;
            write(efd, ref one, 8);
        }

        /// <summary>Makes an eventfd not readable again (reads its count).</summary>
        internal static void Drain(int efd)
        {
            ulong n = 0;
            read(efd, ref n, 8);
        }

        internal static void CloseFd(int fd)
        {
            close(fd);
        }

        /// <summary>Waits until fd is readable, timeoutMs at most (negative: no
        /// limit); else RdmaVerbsException(function, ETIMEDOUT).</summary>
        internal static void Readable(int fd, int timeoutMs, string function)
        {
            Readable(fd, -1, timeoutMs, function);
        }

        /// <summary>Waits until fd is readable (true) or wakeFd is (false; -1:
        /// none), timeoutMs at most (negative: no limit); else
        /// RdmaVerbsException(function, ETIMEDOUT).</summary>
        internal static bool Readable(int fd, int wakeFd, int timeoutMs, string function)
        {
            var deadline = DateTime.UtcNow.AddMilliseconds(Math.Max(0, timeoutMs));
            var p = new PollFd[2];
            while (true) {
                p[0] = new PollFd { fd = fd, events = POLLIN };
                p[1] = new PollFd { fd = wakeFd, events = POLLIN };
                int left = timeoutMs < 0 ? -1 : (int)Math.Ceiling(Math.Max(0, (deadline - DateTime.UtcNow).TotalMilliseconds));
                int r = poll(p, wakeFd < 0 ? 1UL : 2UL, left);
                if (r > 0)
                    return p[0].revents != 0 || p[1].revents == 0;
                if (r == 0)
                    throw new RdmaVerbsException(function, Rdma.ETIMEDOUT, "nothing within " + timeoutMs + " ms");
                int errno = Marshal.GetLastWin32Error();
                if (errno != EINTR)
                    throw new RdmaVerbsException("poll", errno);
            }
        }

        /// <summary>A 32-bit value in network order from host order (and back).</summary>
        internal static uint Net(uint v)
        {
            return BitConverter.IsLittleEndian ? (uint)System.Net.IPAddress.HostToNetworkOrder((int)v) : v;
        }

        static int Off(Type t, string field)
        {
            return (int)Marshal.OffsetOf(t, field);
        }

        internal static readonly int SGE = Marshal.SizeOf(typeof(ibv_sge));
        internal static readonly int SEND_WR = Marshal.SizeOf(typeof(ibv_send_wr));
        internal static readonly int RECV_WR = Marshal.SizeOf(typeof(ibv_recv_wr));
        static readonly int WR = Off(typeof(ibv_send_wr), "wr");
        internal static readonly int SW_WR_ID = Off(typeof(ibv_send_wr), "wr_id"),
            SW_NEXT = Off(typeof(ibv_send_wr), "next"), SW_SG_LIST = Off(typeof(ibv_send_wr), "sg_list"),
            SW_NUM_SGE = Off(typeof(ibv_send_wr), "num_sge"), SW_OPCODE = Off(typeof(ibv_send_wr), "opcode"),
            SW_SEND_FLAGS = Off(typeof(ibv_send_wr), "send_flags"), SW_IMM_DATA = Off(typeof(ibv_send_wr), "imm_data"),
            SW_RDMA_REMOTE_ADDR = WR + Off(typeof(ibv_send_wr_wr_rdma), "remote_addr"),
            SW_RDMA_RKEY = WR + Off(typeof(ibv_send_wr_wr_rdma), "rkey"),
            SW_ATOMIC_REMOTE_ADDR = WR + Off(typeof(ibv_send_wr_wr_atomic), "remote_addr"),
            SW_ATOMIC_COMPARE_ADD = WR + Off(typeof(ibv_send_wr_wr_atomic), "compare_add"),
            SW_ATOMIC_SWAP = WR + Off(typeof(ibv_send_wr_wr_atomic), "swap"),
            SW_ATOMIC_RKEY = WR + Off(typeof(ibv_send_wr_wr_atomic), "rkey");
        internal static readonly int RW_WR_ID = Off(typeof(ibv_recv_wr), "wr_id"),
            RW_NEXT = Off(typeof(ibv_recv_wr), "next"), RW_SG_LIST = Off(typeof(ibv_recv_wr), "sg_list"),
            RW_NUM_SGE = Off(typeof(ibv_recv_wr), "num_sge");
        static readonly int SGE_ADDR = Off(typeof(ibv_sge), "addr"), SGE_LENGTH = Off(typeof(ibv_sge), "length"),
            SGE_LKEY = Off(typeof(ibv_sge), "lkey");

        /// <summary>Writes g as an ibv_sge at p.</summary>
        internal static void WriteSge(IntPtr p, Sge g)
        {
            Marshal.WriteInt64(p, SGE_ADDR, (long)g.Address);
            Marshal.WriteInt32(p, SGE_LENGTH, g.Length);
            Marshal.WriteInt32(p, SGE_LKEY, (int)g.Mr.Lkey);
        }

        /// <summary>Writes n zero bytes at p (n a multiple of 8).</summary>
        internal static void Clear(IntPtr p, int n)
        {
            for (int i = 0; i < n; i += 8)
                Marshal.WriteInt64(p, i, 0);
        }
    }

    /// <summary>C memory of the binding's own (AllocHGlobal), grown as needed,
    /// freed with its owner.</summary>
    sealed class Scratch
    {
        IntPtr p = IntPtr.Zero;
        int size;

        /// <summary>At least n bytes, zeroed.</summary>
        public IntPtr Get(int n)
        {
            n = (n + 7) & ~7;
            if (size < n) {
                Free();
                size = Math.Max(n, 1024);
                p = Marshal.AllocHGlobal(size);
            }
            Calls.Clear(p, n);
            return p;
        }

        public void Free()
        {
            if (p != IntPtr.Zero)
                Marshal.FreeHGlobal(p);
            p = IntPtr.Zero;
            size = 0;
        }
    }
}
