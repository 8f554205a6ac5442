#include "interrupt.hpp"

#include <csignal>

namespace soma {

namespace {

volatile std::sig_atomic_t g_signal = 0;
struct sigaction g_previous_int, g_previous_term;

extern "C" void record_signal(int signal) { g_signal = signal; }

}  // namespace

InterruptHandler::InterruptHandler() {
    g_signal = 0;
    struct sigaction action {};
    action.sa_handler = record_signal;
    sigemptyset(&action.sa_mask);
    // SA_RESETHAND: the second Ctrl-C gets the default action and ends the process at once.
    action.sa_flags = SA_RESETHAND | SA_RESTART;
    sigaction(SIGINT, &action, &g_previous_int);
    sigaction(SIGTERM, &action, &g_previous_term);
}

InterruptHandler::~InterruptHandler() {
    sigaction(SIGINT, &g_previous_int, nullptr);
    sigaction(SIGTERM, &g_previous_term, nullptr);
}

int InterruptHandler::signal_received() { return g_signal; }

}  // namespace soma
