"""Stop words per language: short lists of function words, written by the rag-bench team.

Each list holds only articles, pronouns, prepositions, conjunctions and the commonest auxiliary
forms (lower case, accents as written), never content words: a BM25 stop list removes words whose
idf is low anyway, and a long list removes words a question needs ("system", "information" are on
some published lists). English keeps Lucene's set (``analyzers.ENGLISH_STOPWORDS``); languages
without a list here (armenian, nepali, sesotho, tamil, yiddish) are stemmed with no stop words.
The lists also serve language detection (``detect.py``).
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# fmt: off
STOPWORDS: dict[str, frozenset[str]] = {
    "catalan": _words("""
        el la els les l un una uns unes de del dels a al als en i o però que què qui com per amb sense
        sobre entre fins des és són era ser estar ha han hem he va van no sí es se ens us hi ho li
        aquest aquesta aquests aquestes aquell aquella seu seva seus seves meu meva també més molt"""),
    "czech": _words("""
        a i ale nebo že aby když jak co kdo který která které kteří to ten ta tento tato toto je jsou
        byl byla bylo byli být bude budou v ve na do z ze s se si k ke o od po pro při za před pod nad
        mezi jeho její jejich jsem jsme jste není také už jen"""),
    "danish": _words("""
        og i at det der en et den de som til af på er var for med han hun ikke jeg vi du har havde
        fra om så men eller hvis når kan skal vil være blev bliver også sig sin sit sine hans hendes
        deres denne dette disse ved efter over under hvor hvad hvem"""),
    "dutch": _words("""
        de het een en of maar dat die dit deze van in op te aan met voor door naar bij uit over om tot
        is zijn was waren wordt worden werd heeft hebben had ik je jij hij zij we wij u ze ook niet
        geen al er hier daar wat wie waar hoe als dan nog wel zo"""),
    "english": _words("""
        a an and are as at be but by for if in into is it no not of on or such that the their then
        there these they this to was will with what which who whom how when where why do does did
        has have had i you he she we them his her its our your from can been were"""),
    "esperanto": _words("""
        la kaj aŭ sed de da en al el por pri kun sen per ĉe ĝis post antaŭ inter sur sub tra ke ĉu
        ne jes estas estis estos esti mi vi li ŝi ĝi ni ili si tiu tio kiu kio kiel kie kiam ankaŭ"""),
    "estonian": _words("""
        ja ning ega või aga et kui kes mis see need ta nad ma me te on oli olid olema ei ka ja ka
        selle seda sellest kas kus kuidas miks siis veel juba ainult väga üle alla pärast enne"""),
    "finnish": _words("""
        ja tai mutta että kun jos kuin myös ei en et emme ette eivät on ovat oli olivat olla ole
        minä sinä hän me te he se ne tämä tuo nämä nuo mikä kuka joka jotka mitä missä miten
        niin nyt vain jo vielä kanssa ilman"""),
    "french": _words("""
        le la les l un une des du de d au aux et ou mais donc or ni car que qu qui quoi dont où ce
        cet cette ces c se s sa son ses leur leurs il elle ils elles on je j nous vous tu me m te t
        lui en y ne n pas plus est sont était être a ont avait avoir dans par pour sur avec sans
        sous entre chez comme si aussi très"""),
    "german": _words("""
        der die das den dem des ein eine einer einem einen eines und oder aber doch sondern denn
        dass daß ob wenn weil als wie wo was wer welche welcher welches ist sind war waren sein
        wird werden wurde wurden hat haben hatte hatten ich du er sie es wir ihr man sich nicht kein
        keine in im an am auf aus bei mit nach von vom zu zum zur für über unter durch um vor
        auch noch nur schon sehr so dann hier dort"""),
    "greek": _words("""
        ο η το οι τα του της των τον την ένας μια ένα και ή αλλά ότι που πως αν να θα δεν μη μην
        είναι ήταν σε στο στη στην στον στα στους με από για προς κατά μετά χωρίς αυτός αυτή αυτό
        εγώ εσύ εμείς εσείς αυτοί"""),
    "hungarian": _words("""
        a az egy és vagy de hogy ha mint is nem sem már még csak van volt lesz vannak voltak
        én te ő mi ti ők ez az ezt azt ezek azok ki mi mit hol hogyan mikor miért meg el fel le
        ki be át után alatt felett között"""),
    "indonesian": _words("""
        yang dan atau tetapi di ke dari pada untuk dengan dalam oleh ini itu adalah ialah akan
        sudah telah belum tidak bukan juga saya kamu dia kami kita mereka apa siapa mana bagaimana
        kapan mengapa jika karena sebagai ada"""),
    "irish": _words("""
        an na a ag ar as de do i in le ó go agus nó ach is ba tá bhí níl sé sí siad muid sibh mé tú
        é í iad seo sin ann air uirthi orthu leis léi"""),
    "italian": _words("""
        il lo la i gli le l un uno una un' di del dello della dei degli delle a al allo alla ai
        agli alle da dal dalla in nel nello nella nei nelle su sul sulla con per tra fra e ed o ma
        che chi cui non è sono era erano essere ha hanno aveva avere io tu lui lei noi voi loro si
        ci ne questo questa quello quella come dove quando anche più molto"""),
    "lithuanian": _words("""
        ir ar bet o kad kai jei nes kaip kur kas koks kokia tai šis ši tas ta jis ji jie jos aš tu
        mes jūs yra buvo bus būti ne nė į iš su be per prie po ant už apie nuo iki taip pat dar jau"""),
    "norwegian": _words("""
        og i at det den de en et som til av på er var for med han hun ikke jeg vi du har hadde fra
        om så men eller hvis når kan skal vil være ble blir også seg sin sitt sine hans hennes
        deres denne dette disse ved etter over under hvor hva hvem"""),
    "polish": _words("""
        i a ale lub albo czy że aby gdy jak co kto który która które to ten ta te jest są był była
        było byli być będzie w we na do z ze o od po przez dla przy za przed pod nad między się
        nie tak też już tylko jego jej ich"""),
    "portuguese": _words("""
        o a os as um uma uns umas de do da dos das em no na nos nas por pelo pela pelos pelas para
        com sem sobre entre e ou mas que quem qual onde como quando se não sim é são era eram ser
        estar foi ter tem têm eu tu ele ela nós vós eles elas seu sua seus suas este esta esse essa
        isto isso aquele aquela também mais muito"""),
    "romanian": _words("""
        și sau dar că ca de la în pe cu din pentru prin despre fără între un o unui unei niște
        este sunt era erau fi a au am ai nu da eu tu el ea noi voi ei ele care ce cine unde cum
        când acest această acesta aceasta acei acele lui ei lor mai foarte"""),
    "russian": _words("""
        и в во не что он она оно они на я ты мы вы с со как а то все всё так его её их но да к ко у
        же вот от по из о об за для бы был была было были быть есть это этот эта эти тот та те
        который которая которые где когда кто чем при до под над между или ли если уже только"""),
    "serbian": _words("""
        i a ali ili da je su bio bila bilo biti će u na za od do iz sa s o po pri kroz prema kod
        ne se to taj ta te ovaj ova ovo onaj ona ono on oni ja ti mi vi koji koja koje šta što
        gde kada kako i takođe samo već"""),
    "spanish": _words("""
        el la los las lo un una unos unas de del al a en y e o u pero sino que quien quién cual
        cuál donde dónde como cómo cuando cuándo por para con sin sobre entre hasta desde es son
        era eran ser estar está están fue ha han había haber no sí se su sus mi mis tu tus yo él
        ella nosotros vosotros ellos ellas este esta estos estas ese esa eso también más muy"""),
    "swedish": _words("""
        och i att det den de en ett som till av på är var för med han hon inte jag vi du har hade
        från om så men eller när kan ska skall vill vara blev blir också sig sin sitt sina hans
        hennes deras denna detta dessa vid efter över under var vad vem hur"""),
    "turkish": _words("""
        ve veya ya ama fakat ancak ki da de ile için gibi kadar bu şu o bunlar şunlar onlar ben
        sen biz siz bir her hiç ne neden nasıl nerede kim hangi mi mı mu mü değil var yok daha çok
        en olarak olan"""),
    "arabic": _words("""
        في من إلى على عن مع هذا هذه ذلك تلك الذي التي الذين و أو ثم لكن أن إن كان كانت يكون
        لا لم لن ما هو هي هم نحن أنا أنت كل بعد قبل بين عند حتى قد"""),
    "persian": _words("""
        و در به از که این آن را با برای تا یا اما هم نیز است بود هست شد شود می نمی من تو او ما
        شما آنها هر چه چرا کجا کی یک بر"""),
    "hindi": _words("""
        का के की को में से पर और या लेकिन कि है हैं था थे थी हो होना यह वह ये वे मैं तुम आप हम
        इस उस इन उन कौन क्या कहाँ कब क्यों भी तो ही नहीं एक"""),
    "basque": _words("""
        eta edo baina ere ez bai da dira zen ziren izan du dute zuen hau hori hura hauek horiek
        ni zu hura gu zuek haiek bat batean nola non noiz zer zein nor"""),
}
# fmt: on
