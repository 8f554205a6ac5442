#include "view_command.hpp"

#include "interrupt.hpp"

#include <fmt/format.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

#ifndef SOMA_PLOT_PYTHON
#define SOMA_PLOT_PYTHON "/usr/bin/python3"
#endif

namespace soma {

namespace fs = std::filesystem;

namespace {

// ---- the HTTP server ------------------------------------------------------------------------

/// URL path prefix -> folder it serves.
struct Mount {
    std::string prefix;  ///< starts and ends with '/'
    fs::path root;       ///< canonical
};

const char* content_type(const fs::path& file) {
    const std::string ext = file.extension().string();
    if (ext == ".html") return "text/html; charset=utf-8";
    if (ext == ".js" || ext == ".mjs") return "text/javascript; charset=utf-8";
    if (ext == ".css") return "text/css; charset=utf-8";
    if (ext == ".json") return "application/json";
    if (ext == ".pvd" || ext == ".xml") return "application/xml";
    if (ext == ".csv") return "text/csv; charset=utf-8";
    if (ext == ".png") return "image/png";
    if (ext == ".svg") return "image/svg+xml";
    return "application/octet-stream";  // .vtu: XML with raw appended bytes
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/// "%2e" -> "."; nullopt for a malformed escape or a NUL.
std::optional<std::string> percent_decode(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%') {
            out += text[i];
            continue;
        }
        if (i + 2 >= text.size()) return std::nullopt;
        const int hi = hex_digit(text[i + 1]);
        const int lo = hex_digit(text[i + 2]);
        if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) return std::nullopt;
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
    }
    return out;
}

std::string percent_encode(const std::string& text) {
    std::string out;
    for (const unsigned char c : text) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') out += static_cast<char>(c);
        else out += fmt::format("%{:02X}", c);
    }
    return out;
}

/// Whether `path` is `root` or inside it (both canonical).
bool inside(const fs::path& path, const fs::path& root) {
    const auto [r, p] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
    return r == root.end();
}

void send_all(int socket, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t sent = ::send(socket, data, size, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) return;  // the client went away: nothing to do
        data += sent;
        size -= static_cast<std::size_t>(sent);
    }
}

/// A static-file HTTP/1.0 server on 127.0.0.1: GET and HEAD only, one connection at a time
/// (Connection: close), paths confined to its mounts, no directory listing. Enough for a
/// browser on the same machine; not a web server to expose.
class StaticFileServer {
public:
    StaticFileServer(std::vector<Mount> mounts, int port) : mounts_(std::move(mounts)) {
        // Longest prefix first, so "/data/" wins over "/".
        std::sort(mounts_.begin(), mounts_.end(),
                  [](const Mount& a, const Mount& b) { return a.prefix.size() > b.prefix.size(); });
        listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (listener_ < 0) throw std::runtime_error(fmt::format("soma view: cannot open a socket: {}", std::strerror(errno)));
        const int yes = 1;
        ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        address.sin_port = htons(static_cast<std::uint16_t>(port));
        if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(listener_, 64) != 0) {
            const std::string why = std::strerror(errno);
            ::close(listener_);
            throw std::runtime_error(fmt::format("soma view: cannot listen on 127.0.0.1:{}: {}{}", port, why,
                                                 port ? " (choose another --port, or 0 for a free one)" : ""));
        }
        socklen_t length = sizeof address;
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
        port_ = ntohs(address.sin_port);
    }
    ~StaticFileServer() {
        ::close(listener_);
        // Connections still being answered use this object: wait for them (each is bounded by
        // its 5 s socket timeouts).
        while (active_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    StaticFileServer(const StaticFileServer&) = delete;
    StaticFileServer& operator=(const StaticFileServer&) = delete;

    int port() const { return port_; }

    /// Serves until `stop()` is true (checked every 100 ms).
    template <class Stop>
    void serve(Stop&& stop) {
        while (!stop()) {
            pollfd waiting{listener_, POLLIN, 0};
            const int ready = ::poll(&waiting, 1, 100);
            if (ready <= 0) continue;  // timeout, or EINTR from a signal: check stop()
            const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
            if (client < 0) continue;
            // A client that stalls cannot hold the server for long.
            timeval timeout{5, 0};
            ::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
            ::setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
            // Each connection on its own thread: a browser's idle preconnected socket, or a slow
            // client, must not hold up the page's other requests. Past 64 at once, in line.
            if (active_ >= 64) {
                handle(client);
                ::close(client);
                continue;
            }
            ++active_;
            std::thread([this, client] {
                handle(client);
                ::close(client);
                --active_;
            }).detach();
        }
    }

    /// The query of the page's last `GET /__report?...` (how a snapshot page says it has drawn).
    std::string report() const {
        const std::lock_guard lock(mutex_);
        return report_;
    }

private:
    void respond(int client, int status, const std::string& reason, const std::string& body) {
        const std::string head = fmt::format(
            "HTTP/1.0 {} {}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            status, reason, body.size());
        send_all(client, head.data(), head.size());
        send_all(client, body.data(), body.size());
    }

    void handle(int client) {
        std::string request;
        char buffer[4096];
        while (request.find("\r\n\r\n") == std::string::npos && request.size() < 16384) {
            const ssize_t got = ::recv(client, buffer, sizeof buffer, 0);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) return;
            request.append(buffer, static_cast<std::size_t>(got));
        }
        std::istringstream line(request.substr(0, request.find("\r\n")));
        std::string method, target, version;
        line >> method >> target >> version;
        if (method != "GET" && method != "HEAD") return respond(client, 405, "Method Not Allowed", "GET only\n");
        if (target.empty() || target[0] != '/') return respond(client, 400, "Bad Request", "bad request target\n");
        const std::size_t query_at = target.find('?');
        const std::string query = query_at == std::string::npos ? "" : target.substr(query_at + 1);
        const auto path = percent_decode(target.substr(0, query_at));
        if (!path) return respond(client, 400, "Bad Request", "bad escape in the path\n");
        if (*path == "/__report") {
            {
                const std::lock_guard lock(mutex_);
                report_ = query;
            }
            return respond(client, 200, "OK", "");
        }
        const auto file = resolve(*path);
        if (!file) return respond(client, 404, "Not Found", fmt::format("not found: {}\n", *path));
        std::ifstream in(*file, std::ios::binary);
        std::error_code ec;
        const std::uintmax_t size = fs::file_size(*file, ec);
        if (!in || ec) return respond(client, 403, "Forbidden", fmt::format("cannot read: {}\n", *path));
        const std::string head = fmt::format(
            "HTTP/1.0 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n",
            content_type(*file), size);
        send_all(client, head.data(), head.size());
        if (method == "HEAD") return;
        std::vector<char> chunk(1 << 16);
        while (in) {
            in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
            send_all(client, chunk.data(), static_cast<std::size_t>(in.gcount()));
        }
    }

    /// The file a URL path names, or nullopt: outside every mount (a "..", a link leading out),
    /// not a regular file.
    std::optional<fs::path> resolve(const std::string& path) const {
        if (path.find('\\') != std::string::npos) return std::nullopt;
        for (const Mount& mount : mounts_) {
            if (path.rfind(mount.prefix, 0) != 0) continue;
            std::string relative = path.substr(mount.prefix.size());
            if (relative.empty() || relative.back() == '/') relative += "index.html";
            std::istringstream parts(relative);
            for (std::string part; std::getline(parts, part, '/');)
                if (part == "..") return std::nullopt;
            std::error_code ec;
            const fs::path file = fs::weakly_canonical(mount.root / relative, ec);
            if (ec || !inside(file, mount.root) || !fs::is_regular_file(file, ec)) return std::nullopt;
            return file;
        }
        return std::nullopt;
    }

    std::vector<Mount> mounts_;
    int listener_ = -1;
    int port_ = 0;
    mutable std::mutex mutex_;
    std::atomic<int> active_{0};  ///< connections being answered on their threads
    std::string report_;
};

// ---- processes ------------------------------------------------------------------------------

struct ProcessResult {
    int exit_code = -1;  ///< the exit status, 128 + signal, or -1 when it timed out
    bool timed_out = false;
};

/// Runs `argv` in its own process group, stdout and stderr to `log` (empty: inherited), killing
/// the whole group after `timeout` seconds.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout, const fs::path& log) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const pid_t child = ::fork();
    if (child < 0) throw std::runtime_error(fmt::format("cannot start {}: {}", argv[0], std::strerror(errno)));
    if (child == 0) {
        ::setpgid(0, 0);
        if (!log.empty()) {
            const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd >= 0) {
                ::dup2(fd, 1);
                ::dup2(fd, 2);
            }
        }
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    ::setpgid(child, child);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
    ProcessResult result;
    int status = 0;
    while (true) {
        const pid_t done = ::waitpid(child, &status, WNOHANG);
        if (done == child) break;
        if (done < 0 && errno != EINTR) return result;
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(-child, SIGKILL);
            ::waitpid(child, &status, 0);
            result.timed_out = true;
            return result;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::kill(-child, SIGKILL);  // helpers a browser left behind in its group
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
}

/// `name` on $PATH, or empty.
fs::path find_program(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::istringstream folders(path ? path : "/usr/bin:/bin");
    for (std::string folder; std::getline(folders, folder, ':');) {
        if (folder.empty()) continue;
        const fs::path candidate = fs::path(folder) / name;
        if (::access(candidate.c_str(), X_OK) == 0 && fs::is_regular_file(candidate)) return candidate;
    }
    return {};
}

std::string file_tail(const fs::path& file, std::size_t bytes) {
    std::ifstream in(file, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return text.size() > bytes ? "..." + text.substr(text.size() - bytes) : text;
}

/// WIDTHxHEIGHT, each 16 to 8192.
std::pair<int, int> parse_size(const std::string& size, const std::string& option) {
    int width = 0, height = 0;
    char x = 0, extra = 0;
    std::istringstream in(size);
    if (!(in >> width >> x >> height) || (x != 'x' && x != 'X') || (in >> extra) || width < 16 || height < 16 ||
        width > 8192 || height > 8192)
        throw std::runtime_error(
            fmt::format("{}: expected WIDTHxHEIGHT in pixels (16 to 8192 each, e.g. 1280x800), got '{}'", option, size));
    return {width, height};
}

fs::path executable_folder() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::current_path() : self.parent_path();
}

/// Where share/soma sits next to the binary (<prefix>/bin/soma -> <prefix>/share/soma).
fs::path share_folder() { return executable_folder().parent_path() / "share" / "soma"; }

/// The run's collection: (the folder to serve, the .pvd's name in it, its frame count).
struct Collection {
    fs::path folder;
    std::string name;
    long frames = 0;
};

Collection find_collection(const std::string& output) {
    std::error_code ec;
    const fs::path given = output;
    Collection c;
    if (fs::is_regular_file(given, ec)) {
        if (given.extension() != ".pvd")
            throw std::runtime_error(fmt::format(
                "'{}' is not a .pvd collection: give a run's output folder or its .pvd file", output));
        c.folder = fs::canonical(given).parent_path();
        c.name = given.filename().string();
    } else if (fs::is_directory(given, ec)) {
        c.folder = fs::canonical(given);
        std::vector<std::string> names;
        for (const auto& entry : fs::directory_iterator(c.folder))
            if (entry.is_regular_file() && entry.path().extension() == ".pvd") names.push_back(entry.path().filename().string());
        std::sort(names.begin(), names.end());
        if (names.empty())
            throw std::runtime_error(fmt::format(
                "'{}' has no .pvd collection: the viewer shows the frames of a `vtk` output (add `- {{type: vtk}}` to "
                "the scene's `outputs:` and run it again)", output));
        c.name = std::find(names.begin(), names.end(), "frames.pvd") != names.end() ? "frames.pvd" : names.front();
        if (names.size() > 1) {
            std::string others;
            for (const auto& n : names)
                if (n != c.name) others += (others.empty() ? "" : ", ") + n;
            fmt::print(stderr, "note: showing {} (also in the folder: {}; name a .pvd file to see another)\n", c.name,
                       others);
        }
    } else {
        throw std::runtime_error(fmt::format("'{}' does not exist: give a run's output folder or its .pvd file", output));
    }
    std::ifstream in(c.folder / c.name, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("<VTKFile") == std::string::npos || text.find("Collection") == std::string::npos)
        throw std::runtime_error(fmt::format("'{}' is not a VTK collection (.pvd) file", (c.folder / c.name).string()));
    for (std::size_t at = text.find("<DataSet"); at != std::string::npos; at = text.find("<DataSet", at + 1)) ++c.frames;
    return c;
}

/// "key=value" of a report query, or "".
std::string query_value(const std::string& query, const std::string& key) {
    std::istringstream parts(query);
    for (std::string part; std::getline(parts, part, '&');)
        if (part.rfind(key + "=", 0) == 0) return percent_decode(part.substr(key.size() + 1)).value_or("");
    return {};
}

int snapshot(const ViewOptions& options, const Collection& collection, StaticFileServer& server) {
    const auto [width, height] = parse_size(options.size, "--size");
    if (collection.frames == 0)
        throw std::runtime_error(fmt::format("'{}' lists no frames", (collection.folder / collection.name).string()));
    const long frame = options.frame < 0 ? collection.frames + options.frame : options.frame;
    if (frame < 0 || frame >= collection.frames)
        throw std::runtime_error(fmt::format("--frame {}: '{}' has {} frames (0 to {}, or -1 for the last)", options.frame,
                                             collection.name, collection.frames, collection.frames - 1));
    fs::path chromium;
    if (const char* env = std::getenv("SOMA_CHROMIUM")) chromium = env;
    for (const char* name : {"chromium", "chromium-browser", "google-chrome"})
        if (chromium.empty()) chromium = find_program(name);
    if (chromium.empty())
        throw std::runtime_error("soma view --snapshot renders with headless Chromium, which is not installed: install "
                                 "the Debian package `chromium` (apt-get install chromium), or set SOMA_CHROMIUM to a "
                                 "Chrome or Chromium binary");
    const fs::path png = fs::absolute(options.snapshot);
    if (!png.parent_path().empty()) fs::create_directories(png.parent_path());
    fs::remove(png);

    char scratch_template[] = "/tmp/soma-chromium-XXXXXX";
    if (!::mkdtemp(scratch_template)) throw std::runtime_error("cannot create a temporary folder for Chromium");
    const fs::path scratch = scratch_template;
    std::atomic<bool> stop{false};
    std::thread serving([&] { server.serve([&] { return stop.load(); }); });
    const std::string url = fmt::format("http://127.0.0.1:{}/?pvd={}&frame={}&snapshot=1&width={}&height={}{}",
                                        server.port(), percent_encode(collection.name), frame, width, height,
                                        options.field.empty() ? "" : "&field=" + percent_encode(options.field));
    // Software WebGL (SwiftShader through ANGLE), no GPU needed. --no-sandbox: the page is our
    // own, served from this machine, and the sandbox cannot start as root or in most containers.
    // The virtual-time budget lets the page fetch and draw the frame before the screenshot.
    const std::vector<std::string> argv = {chromium.string(), "--headless=new", "--no-sandbox",
                                           "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
                                           "--hide-scrollbars", "--mute-audio", "--no-first-run",
                                           "--no-default-browser-check", "--disable-extensions",
                                           "--disable-background-networking", "--disable-dev-shm-usage",
                                           "--user-data-dir=" + (scratch / "profile").string(),
                                           fmt::format("--window-size={},{}", width, height),
                                           "--virtual-time-budget=30000", "--screenshot=" + png.string(), url};
    ProcessResult result;
    try {
        result = run_process(argv, options.timeout, scratch / "chromium.log");
    } catch (...) {
        stop = true;
        serving.join();
        throw;
    }
    stop = true;
    serving.join();
    const std::string log = file_tail(scratch / "chromium.log", 2000);
    std::error_code ec;
    fs::remove_all(scratch, ec);
    const std::string report = server.report();
    const std::string page_error = query_value(report, "error");
    if (!page_error.empty()) throw std::runtime_error(fmt::format("the viewer page could not draw frame {}: {}", frame, page_error));
    if (result.timed_out)
        throw std::runtime_error(fmt::format("Chromium did not finish the snapshot within {} s (--timeout); its log:\n{}",
                                             options.timeout, log));
    if (result.exit_code != 0 || !fs::exists(png))
        throw std::runtime_error(fmt::format("Chromium ({}) exited with {} without writing '{}'; its log:\n{}",
                                             chromium.string(), result.exit_code, png.string(), log));
    if (query_value(report, "state") != "drawn")
        throw std::runtime_error(fmt::format(
            "the viewer page did not report frame {} drawn before Chromium's screenshot; its log:\n{}", frame, log));
    fmt::print("{}: frame {} of {} ({}x{})\n", png.string(), frame, (collection.folder / collection.name).string(),
               width, height);
    return 0;
}

}  // namespace

fs::path viewer_asset_folder() {
    if (const char* env = std::getenv("SOMA_VIEWER_DIR"); env && *env) return env;
    return share_folder() / "viewer";
}

int view_command(const ViewOptions& options) {
    if (options.port < 0 || options.port > 65535)
        throw std::runtime_error(fmt::format("--port {}: expected 0 (a free port) to 65535", options.port));
    const fs::path assets = viewer_asset_folder();
    std::error_code ec;
    if (!fs::is_regular_file(assets / "index.html", ec) || !fs::is_regular_file(assets / "three" / "build" / "three.module.js", ec))
        throw std::runtime_error(fmt::format(
            "the viewer's page is not in '{}' (index.html and three/build/three.module.js expected): build the "
            "`soma_viewer` target, install Soma, or set SOMA_VIEWER_DIR to the folder", assets.string()));
    const Collection collection = find_collection(options.output);
    StaticFileServer server({{"/", fs::canonical(assets)}, {"/data/", collection.folder}},
                            options.snapshot.empty() ? options.port : 0);
    if (!options.snapshot.empty()) return snapshot(options, collection, server);

    fmt::print("soma view: serving {} ({} frames)\nopen http://127.0.0.1:{}/?pvd={} in a browser; Ctrl-C stops\n",
               (collection.folder / collection.name).string(), collection.frames, server.port(),
               percent_encode(collection.name));
    std::fflush(stdout);
    const InterruptHandler interrupts;
    server.serve([] { return InterruptHandler::signal_received() != 0; });
    fmt::print(stderr, "soma view: stopped\n");
    return 0;
}

int plot_command(const PlotOptions& options) {
    const fs::path script = share_folder() / "soma_plot.py";
    if (!fs::is_regular_file(script))
        throw std::runtime_error(fmt::format("the plotting script is not at '{}': build the `soma_viewer` target or "
                                             "install Soma", script.string()));
    std::string python = SOMA_PLOT_PYTHON;
    if (const char* env = std::getenv("SOMA_PYTHON"); env && *env) python = env;
    if (python.empty() || ::access(python.c_str(), X_OK) != 0)
        throw std::runtime_error(fmt::format(
            "soma plot needs Python 3 with matplotlib ('{}' is not there): install the Debian package "
            "`python3-matplotlib`, or set SOMA_PYTHON to a python3 that has it", python));
    const auto [width, height] = parse_size(options.size, "--size");
    std::error_code ec;
    if (!fs::is_regular_file(options.csv, ec))
        throw std::runtime_error(fmt::format("'{}' is not a file: give a CSV series written by a `csv` output",
                                             options.csv));
    const std::string output = options.output.empty() ? fs::path(options.csv).replace_extension(".png").string()
                                                      : options.output;
    std::vector<std::string> argv = {python, script.string(), "--output", output,
                                     fmt::format("--size={}x{}", width, height)};
    if (options.overlay) argv.emplace_back("--overlay");
    argv.emplace_back("--");  // the CSV and the columns: never options, whatever their names
    argv.emplace_back(options.csv);
    argv.insert(argv.end(), options.columns.begin(), options.columns.end());
    const ProcessResult result = run_process(argv, 300.0, {});
    if (result.timed_out) throw std::runtime_error("soma plot: matplotlib did not finish within 300 s");
    // The script prints its own errors (a missing column lists the others); exit 1 like any bad input.
    return result.exit_code == 0 ? 0 : 1;
}

}  // namespace soma
